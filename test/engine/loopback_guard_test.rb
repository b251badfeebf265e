# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # The engine refuses any address outside 127.0.0.0/8 and ::1 unless given
  # --allow-remote, which no test ever passes. Every run here happens inside a
  # fresh network namespace (`unshare -n`) that holds only a loopback device,
  # and that one down: if the guard were broken, nothing could leave the box.
  class EngineLoopbackGuardTest < EngineCase
    REMOTE_TARGETS = %w[
      http://10.1.2.3:80/
      http://8.8.8.8/
      http://192.168.1.1:8080/x
      http://[2001:db8::1]:80/
      http://[::ffff:8.8.8.8]:80/
    ].freeze

    def setup
      super
      skip "`unshare -n` is not available here (needs root or user namespaces)" unless unshare_works?
    end

    def test_remote_addresses_are_refused
      REMOTE_TARGETS.each do |target|
        refute_includes target, "allow-remote"
        run = run_engine(target, "-n", 1, "-c", 1, "--connect-timeout", 1, prefix: %w[unshare -n], deadline: 4)
        assert_refused(run)
      end
    end

    def test_hostname_resolving_to_a_remote_address_is_refused
      Dir.mktmpdir("arena-hosts") do |dir|
        hosts = File.join(dir, "hosts")
        File.write(hosts, "10.9.8.7 arena-remote.test\n127.0.0.1 localhost\n")
        # A private mount namespace lets this one process see its own
        # /etc/hosts; the real file is untouched.
        prefix = ["unshare", "-n", "-m", "--", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"', hosts]
        run = run_engine("http://arena-remote.test:80/", "-n", 1, "-c", 1, "--connect-timeout", 1,
          prefix: prefix, deadline: 4)
        assert_refused(run)
      end
    end

    # The guard must not refuse loopback: inside the namespace these fail to
    # connect (exit 1), they are not usage errors (exit 2).
    def test_loopback_addresses_are_allowed
      %w[http://127.0.0.1:9/ http://127.0.0.2:9/ http://[::1]:9/].each do |target|
        run = run_engine(target, "-n", 1, "-c", 1, "--connect-timeout", 1, prefix: %w[unshare -n], deadline: 4)
        assert_equal 1, run.exit_code, "loopback target treated as a usage error:\n#{run.describe}"
        refute_match(/allow-remote/, run.stderr, run.describe)
      end
    end

    private

    def assert_refused(run)
      assert_one_line_error(run, 2)
      assert_match(/--allow-remote/, run.stderr, run.describe)
    end

    def unshare_works?
      system("unshare", "-n", "true", out: File::NULL, err: File::NULL)
    end
  end
end
