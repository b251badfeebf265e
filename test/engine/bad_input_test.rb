# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # Usage errors exit 2, a run that cannot start exits 1; either way one line
  # on stderr, quickly, and never a crash or a hang.
  class EngineBadInputTest < EngineCase
    include TestServers

    def test_unknown_flag
      KeepAlive.open do |server|
        run = run_engine(server.target, "-n", 1, "--frobnicate", deadline: 3)
        assert_one_line_error(run, 2)
        assert_equal 0, server.total_requests
      end
    end

    def test_missing_target
      assert_one_line_error(run_engine("-n", 1, deadline: 3), 2)
    end

    def test_malformed_urls
      port = closed_port
      ["http//127.0.0.1:#{port}/", "http://127.0.0.1:99999/", "http://127.0.0.1:abc/", "ftp://127.0.0.1:#{port}/",
        "127.0.0.1:#{port}", "http://[::1/", "unix:", "http://"].each do |url|
        run = run_engine(url, "-n", 1, deadline: 3)
        assert_one_line_error(run, 2)
      end
    end

    def test_bad_numbers
      KeepAlive.open do |server|
        # The values an issue found accepted: -R 0, --expect-status 1, -d 0 (the
        # engine refuses them itself, whatever Arena's plan checks).
        [%w[-c 0], %w[-c many], %w[-d -1], %w[-d 0], %w[-t 0], %w[-R abc], %w[-R 0], %w[-R 0.0001], %w[--expect-status 1],
          %w[--expect-status 99], %w[--expect-status 1000], %w[--timeout never], %w[--timeout 0], %w[--connect-timeout 0]].each do |flag, value|
          run = run_engine(server.target, flag, value, "-n", 1, deadline: 3)
          assert_one_line_error(run, 2)
        end
      end
    end

    def test_nothing_listening_on_tcp
      run = run_engine("http://127.0.0.1:#{closed_port}/", "-c", 2, "-d", 1, deadline: 4)
      assert_one_line_error(run, 1)
    end

    # A listener whose accept queue is full drops new SYNs: the engine's
    # first connect cannot finish and it gives up after --connect-timeout.
    def test_connect_timeout_at_start
      listener = Socket.new(:INET, :STREAM)
      listener.bind(Addrinfo.tcp("127.0.0.1", 0))
      listener.listen(0)
      address = listener.local_address
      fillers = Array.new(3) do
        socket = Socket.new(:INET, :STREAM)
        begin
          socket.connect_nonblock(address)
        rescue IO::WaitWritable
          nil
        end
        socket
      end
      run = run_engine("http://127.0.0.1:#{address.ip_port}/", "-c", 2, "-d", 1, "--connect-timeout", 0.3, deadline: 4)
      assert_one_line_error(run, 1)
      assert_in_delta 0.3, run.elapsed, 0.5, run.describe
    ensure
      fillers&.each(&:close)
      listener&.close
    end

    def test_nothing_listening_on_unix_socket
      Dir.mktmpdir("arena-engine") do |dir|
        run = run_engine("unix:#{File.join(dir, "absent.sock")}:/", "-c", 2, "-d", 1, deadline: 4)
        assert_one_line_error(run, 1)
      end
    end

    def test_unreadable_mix_file
      KeepAlive.open do |server|
        Dir.mktmpdir("arena-engine") do |dir|
          [File.join(dir, "absent.mix"), dir].each do |mix|
            run = run_engine(server.target, "-n", 1, "--mix", mix, deadline: 3)
            assert_one_line_error(run, 2)
          end
        end
        assert_equal 0, server.total_requests
      end
    end

    def test_malformed_mix_file
      KeepAlive.open do |server|
        Dir.mktmpdir("arena-engine") do |dir|
          mix = File.join(dir, "bad.mix")
          File.write(mix, "heavy GET /x 200\n")
          assert_one_line_error(run_engine(server.target, "-n", 1, "--mix", mix, deadline: 3), 2)
        end
      end
    end

    def test_unreadable_body_file
      KeepAlive.open do |server|
        Dir.mktmpdir("arena-engine") do |dir|
          run = run_engine(server.target, "-n", 1, "-m", "POST", "--body", File.join(dir, "absent"), deadline: 3)
          assert_one_line_error(run, 2)
        end
      end
    end
  end
end
