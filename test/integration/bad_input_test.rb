# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"
require "socket"

class BadInputTest < Arena::ArenaCase
  # 2: nothing could be measured (a server that failed beside others that
  # were measured is a finding, exit 0).
  def assert_one_line_failure(outcome, pattern, status: 2)
    assert_equal status, outcome.status.exitstatus, outcome.describe
    # Lines under "  | " are the server's own log tail, shown on purpose.
    own = outcome.stderr.lines.reject { |l| l.start_with?("  | ") }.join
    refute_match(/\.rb:\d+:in /, own, "no stack trace from Arena")
    assert_match pattern, outcome.stderr
  end

  def test_unknown_server_name
    outcome = arena("run", "--servers", "nginx-unit")
    assert_one_line_failure outcome, /\Aarena: unknown server "nginx-unit"/, status: 2
    assert_equal 1, outcome.stderr.lines.size
  end

  def test_unknown_command_and_flag
    assert_one_line_failure arena("fly"), /unknown command/, status: 2
    assert_one_line_failure arena("run", "--frobnicate"), /invalid option: --frobnicate/, status: 2
  end

  def test_server_that_exits_at_boot
    app = user_app("raise 'boom at boot'\n")
    outcome = arena("run", "--app", app, "--servers", "puma:workers=0", "-d", "1")
    assert_one_line_failure outcome, /FAILED puma:workers=0.* exited during boot/
    assert_match(/boom at boot/, outcome.stderr, "log tail shown")
    assert_equal "failed", outcome.results["servers"].first["status"]
  end

  def test_broken_config_ru
    app = user_app("run ->(env) { [200, {}, ['x']] \n")
    outcome = arena("run", "--app", app, "--servers", "puma:workers=0", "-d", "1")
    assert_one_line_failure outcome, /exited during boot/
    assert_match(/syntax error|SyntaxError|unexpected/, outcome.stderr)
  end

  def test_server_that_never_becomes_ready
    app = user_app("sleep 600\nrun ->(env) { [200, {}, ['x']] }\n")
    outcome = arena("run", "--app", app, "--servers", "puma:workers=0", "--ready-timeout", "2", "-d", "1")
    assert_one_line_failure outcome, /not ready after 2.0s/
  end

  def test_port_already_taken
    taken = TCPServer.new("127.0.0.1", 0)
    outcome = arena("run", "--servers", "puma:workers=0", "--port", taken.addr[1].to_s, "-d", "1")
    assert_one_line_failure outcome, /port #{taken.addr[1]} on 127.0.0.1 is already in use/
  ensure
    taken&.close
  end

  def test_wrong_answer_fails_verification_and_is_not_loaded
    app = user_app("run ->(env) { [200, {'content-type' => 'text/plain', 'content-length' => '3'}, ['bye']] }\n")
    outcome = arena("run", "--app", app, "--servers", "puma:workers=0", "--workload", "/=200:hello", "-d", "1")
    assert_one_line_failure outcome, /failed verification \(body lacks "hello"\)/
    assert_empty outcome.measurements
  end
end

class InterruptKeepsResultsTest < Arena::ArenaCase
  # Ctrl-C reaches Arena alone (the engine and the servers have process groups
  # of their own): it must stop them all and keep what was measured.
  def test_interrupt_keeps_results_and_leaves_nothing_behind
    out = File.join(@tmp, "interrupted")
    pid = Process.spawn(EXE, "run", "--rounds", "1", "--servers", "puma:workers=0 unicorn:workers=1", "--workload", "json", "-c", "2",
      "-d", "2", "-w", "0.2", "--out", out, chdir: ROOT, out: File::NULL, err: File.join(@tmp, "err"))
    results = File.join(out, "results.json")
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
    sleep 0.1 until (File.exist?(results) && JSON.parse(File.read(results))["measurements"].size == 1) || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    Process.kill("INT", pid)
    _, status = Process.wait2(pid)
    assert_equal 130, status.exitstatus, File.read(File.join(@tmp, "err"))
    doc = JSON.parse(File.read(results))
    assert doc["interrupted"]
    assert_equal 1, doc["measurements"].size
    assert_match(/interrupted/, File.read(File.join(@tmp, "err")))
  end
end
