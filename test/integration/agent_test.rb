# frozen_string_literal: true

require "test_helper"
require "arena"
require "json"
require "open3"
require "timeout"

module Arena
  # `arena agent` on pipes, as SSH would run it: the version handshake, a
  # real server started, sampled and killed through it, and nothing left
  # once its stdin closes.
  class AgentTest < Minitest::Test
    EXE = File.expand_path("../../exe/arena", __dir__)

    def agent
      Open3.popen3(RbConfig.ruby, EXE, "agent") do |stdin, stdout, stderr, thread|
        ask = lambda do |op, **fields|
          stdin.puts(JSON.generate({id: (@id = @id.to_i + 1), op: op}.merge(fields)))
          stdin.flush
          line = Timeout.timeout(120) { stdout.gets } or flunk("agent said nothing: #{stderr.read}")
          JSON.parse(line)
        end
        yield ask, stdin, stdout, thread
      end
    end

    def test_a_version_mismatch_is_one_line_and_exit_1
      agent do |ask, stdin, stdout, thread|
        reply = ask.call("hello", version: "0.0.0-other")
        refute reply["ok"]
        assert_equal "version mismatch: agent is arena #{VERSION}, caller is 0.0.0-other", reply["error"]
        stdin.close
        assert_nil stdout.gets, "one line only"
        assert_equal 1, thread.value.exitstatus
      end
    end

    def test_requests_before_hello_and_unknown_ops_are_refused
      agent do |ask, stdin, _, thread|
        assert_equal "say hello first", ask.call("pids", handle: "x")["error"]
        assert ask.call("hello", version: VERSION)["ok"]
        assert_equal "unknown op \"nope\"", ask.call("nope")["error"]
        assert_match(/no server/, ask.call("pids", handle: "x")["error"])
        stdin.close
        assert_equal 0, thread.value.exitstatus
      end
    end

    def test_starts_samples_kills_a_worker_and_stops_everything_when_stdin_closes
      pids = nil
      agent do |ask, stdin, _, thread|
        hello = ask.call("hello", version: VERSION)
        assert hello.dig("environment", "kernel"), "the agent's host environment"
        port = ask.call("free_port", host: "127.0.0.1")["port"]
        launch = {"server" => "puma", "settings" => {"workers" => 2}, "runtime" => [], "env" => {}}
        started = ask.call("start", launch: launch, host: "127.0.0.1", port: port)
        assert started["ok"], started["error"]
        handle = started["handle"]
        pids = ask.call("pids", handle: handle)["pids"]
        assert_equal 3, pids.size, "master and two workers"
        assert ask.call("probe_start", handle: handle, interval: 0.1)["ok"]
        victim = ask.call("kill_worker", handle: handle)["victim"]
        assert_includes pids.drop(1), victim
        summary = ask.call("probe_stop", handle: handle)["summary"]
        assert_operator summary["pss_peak_kb"], :>, 0
        stdin.close # as when SSH drops
        assert_equal 0, Timeout.timeout(60) { thread.value }.exitstatus
      end
      alive = pids.select { |pid| Procfs.stat(pid)&.state.then { |s| s && s != "Z" } }
      assert_empty alive, "the agent left its server running"
    end
  end
end
