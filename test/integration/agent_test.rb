# frozen_string_literal: true

require "test_helper"
require "arena"
require "json"
require "open3"
require "timeout"
require "tmpdir"
require "fileutils"

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
      alive = pids.select { |pid| System::Procfs.stat(pid)&.state.then { |s| s && s != "Z" } }
      assert_empty alive, "the agent left its server running"
    end

    def test_no_op_runs_a_program_the_caller_names
      marker = File.join(Dir.tmpdir, "arena-agent-spawned-#{Process.pid}")
      agent do |ask, stdin, _, thread|
        assert ask.call("hello", version: VERSION)["ok"]
        reply = ask.call("spawn", argv: "touch #{marker}")
        refute reply["ok"]
        assert_equal "unknown op \"spawn\"", reply["error"]
        stdin.close
        assert_equal 0, thread.value.exitstatus
      end
      refute File.exist?(marker), "the agent ran a shell command"
    ensure
      FileUtils.rm_f(marker)
    end

    # Wrong types, hostile values and broken lines are one refused request
    # each, with the request's id; the agent carries on.
    def test_bad_fields_are_refused_by_id_and_the_agent_carries_on
      agent do |ask, stdin, stdout, thread|
        assert ask.call("hello", version: VERSION, app_dir: Dir.tmpdir)["ok"]
        {
          {op: "start", launch: {server: "puma"}, host: "127.0.0.1", port: nil} => /field port/,
          {op: "start", launch: {server: "puma", settings: "x"}, host: "127.0.0.1", port: 9} => /field settings/,
          {op: "start", launch: {server: "puma", env: {"A" => ["x"]}}, host: "127.0.0.1", port: 9} => /field env/,
          {op: "start", launch: "puma", host: "127.0.0.1", port: 9} => /field launch/,
          {op: "start", launch: {server: "puma"}, host: "0.0.0.0", port: 9} => /field host: expected an address of this host/,
          {op: "free_port", host: "8.8.8.8"} => /field host/,
          {op: "start", launch: {server: "puma", rackup: "/etc/passwd"}, host: "127.0.0.1", port: 9} => /outside the app directory/,
          {op: "memory", pids: "1; rm"} => /field pids/,
          {op: "load", args: ["--body", "/etc/passwd", "http://127.0.0.1:9/"]} => /field target/,
          {op: "load", target: "http://10.9.8.7:80/"} => /field target: expected loopback/,
          {op: "load", target: "http://127.0.0.1:9/", body_file: "/etc/passwd"} => /field body_file/,
          {op: "load", target: "http://127.0.0.1:9/", connections: "16"} => /field connections/,
          {op: "load", target: "http://127.0.0.1:9/", headers: ["X: y\r\nEvil: 1"]} => /field headers/,
          {op: "signal", handle: "1-puma", signal: "STOP; rm"} => /field signal|no server/,
          {op: "go", handles: "1-load"} => /field handles/
        }.each do |fields, error|
          op = fields.delete(:op)
          reply = ask.call(op, **fields)
          refute reply["ok"], "#{op} #{fields}"
          assert_equal @id, reply["id"], "the error reply carries the request's id"
          assert_match error, reply["error"], "#{op} #{fields}"
        end
        ["null", "[1,2]", "\"x\"", "{not json", "x" * ((1 << 20) + 10)].each do |line|
          stdin.puts(line)
          stdin.flush
          reply = JSON.parse(Timeout.timeout(30) { stdout.gets })
          refute reply["ok"]
          assert_nil reply["id"]
        end
        assert ask.call("free_port", host: "127.0.0.1")["port"], "still serving"
        stdin.close
        assert_equal 0, thread.value.exitstatus
      end
    end

    def test_a_silent_caller_is_lost_after_the_heartbeat_deadline
      agent do |ask, _stdin, stdout, thread|
        assert ask.call("hello", version: VERSION, heartbeat_s: 0.2)["ok"]
        status = Timeout.timeout(20) { thread.value }
        assert_equal 0, status.exitstatus
      rescue Timeout::Error
        flunk "the agent outlived a silent caller"
      end
    end
  end
end
