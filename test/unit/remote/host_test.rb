# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/session"

module Arena
  # ssh:// hosts, the ssh argv (batch mode, the given keys, no local shell),
  # and the checks a distributed plan gets before anything starts.
  class RemoteHostTest < Minitest::Test
    def test_parses_user_host_and_port
      host = Remote::Host.parse("ssh://bench@10.1.2.3:2222")
      assert_equal ["bench", "10.1.2.3", 2222], [host.user, host.name, host.port]
      bare = Remote::Host.parse("ssh://server-1")
      assert_equal [nil, "server-1", nil], [bare.user, bare.name, bare.port]
      assert_equal "::1", Remote::Host.parse("ssh://[::1]:22").name
    end

    def test_refuses_what_is_not_an_ssh_host
      ["http://x", "ssh://", "ssh://h/path", "ssh://u:pw@h", "ssh://-oProxyCommand=x", "h:22", "ssh://h?x=1"].each do |url|
        error = assert_raises(UsageError, url) { Remote::Host.parse(url) }
        assert_includes error.message, url
      end
    end

    def test_user_names_are_login_names_only
      ["ssh://-oProxyCommand=x@h", "ssh://a;b@h", "ssh://a%20b@h", "ssh://$(id)@h"].each do |url|
        error = assert_raises(UsageError, url) { Remote::Host.parse(url) }
        assert_match(/bad user name|expected ssh/, error.message)
      end
      assert_equal "deploy.user-1", Remote::Host.parse("ssh://deploy.user-1@h").user
    end

    def test_host_keys_are_always_checked
      argv = Remote::Ssh.new.argv(Remote::Host.parse("ssh://h"))
      assert_includes argv, "StrictHostKeyChecking=yes"
      refute(argv.any? { |a| a.match?(/StrictHostKeyChecking=(no|accept-new)/) })
    end

    def test_ssh_argv_is_batch_mode_with_the_given_keys_and_an_escaped_command
      Dir.mktmpdir do |dir|
        key = File.join(dir, "id").tap { |f| File.write(f, "") }
        known = File.join(dir, "known").tap { |f| File.write(f, "") }
        ssh = Remote::Ssh.new(identity: key, known_hosts: known, command: "/opt/ruby/bin/ruby '/srv/my arena/exe/arena' agent")
        argv = ssh.argv(Remote::Host.parse("ssh://root@10.1.2.3:2222"))
        assert_equal "ssh", argv.first
        %w[BatchMode=yes StrictHostKeyChecking=yes IdentitiesOnly=yes].each { |o| assert_includes argv, o }
        assert_includes argv, "UserKnownHostsFile=#{known}"
        assert_equal ["-i", key], argv[argv.index("-i"), 2]
        assert_equal ["-p", "2222"], argv[argv.index("-p"), 2]
        assert_equal ["-l", "root"], argv[argv.index("-l"), 2]
        assert_equal ["--", "10.1.2.3", "/opt/ruby/bin/ruby /srv/my\\ arena/exe/arena agent"], argv.last(3)
        assert_raises(UsageError) { Remote::Ssh.new(identity: File.join(dir, "missing")) }
      end
    end

    def test_a_distributed_plan_is_checked_before_anything_starts
      plan = TestHelp.plan("--servers", "puma")
      {%w[--loader-hosts ssh://a] => /needs --server-host/,
       %w[--server-host ssh://s --bind unix] => /not with --bind unix/,
       %w[--server-host ssh://s --loader-hosts ssh://a,ssh://a] => /same host twice/,
       %w[--server-host ssh://s --ssh-identity /nonexistent/key] => %r{/nonexistent/key: no such file}}.each do |flags, message|
        builder = Planner::Builder.new(machine: Plan::Machine.new(cores: 2)).parse(flags + ["--servers", "puma"], banner: "test")
        error = assert_raises(UsageError) { builder.remote.check(builder.build) }
        assert_match message, error.message
      end
      refute Planner::Builder.new.parse([], banner: "test").remote.any?
      assert plan
    end
  end
end
