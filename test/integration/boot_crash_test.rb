# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"

# A server that cannot run is said at once: its log is read while Arena
# waits for it to answer, and a crash line ends the wait with that line,
# long before the ready timeout (issue 34: uWSGI's workers segfaulted at
# boot and Arena said "not ready after 30s", twice).
class BootCrashTest < Arena::ArenaCase
  # The wait these starts get, and well under it: what ends the wait is the
  # line (about 3.5 s here unloaded; a boot under the whole integration lane
  # took Falcon over 30 s, so the bound is generous and the message decides).
  READY = 60
  QUICK = 45

  def test_a_worker_that_segfaults_at_boot_ends_the_wait_with_rubys_bug_line
    failure, elapsed = start("puma", {"workers" => 1}, "Process.kill(\"SEGV\", Process.pid)\n")
    assert_operator elapsed, :<, QUICK, failure.message
    assert_match(/crashed during boot: \[BUG\] Segmentation fault .*\(\S*config\.ru:1\)\z/, failure.message)
    assert_match(/\[BUG\] Segmentation fault/, failure.crash)
  end

  # Unicorn without preload: the master stays up and respawns each worker
  # that fails to load the app, for ever.
  def test_workers_that_die_at_boot_end_the_wait_with_the_masters_line
    failure, elapsed = start("unicorn", {"workers" => 1, "preload" => false}, "raise \"boom at boot\"\n")
    assert_operator elapsed, :<, QUICK, failure.message
    assert_match(/crashed during boot: .*reaped #<Process::Status: pid \d+ exit 1> worker=0/, failure.message)
  end

  # Falcon's child logs the app's exception and waits for its 30 s health check.
  def test_falcon_says_the_exception_its_app_raised_at_boot
    failure, elapsed = start("falcon", {"count" => 1}, "raise \"boom at boot\"\n")
    assert_operator elapsed, :<, QUICK, failure.message
    assert_match(/falcon:count=1,model=forked crashed during boot: RuntimeError: boom at boot\z/, failure.message)
  end

  # A server that exits is said with the exception that made it exit.
  def test_an_exit_at_boot_is_said_with_the_uncaught_exception
    failure, _elapsed = start("puma", {"workers" => 0}, "raise \"boom at boot\"\n")
    assert_match(/exited during boot \(exit status 1\): .*config\.ru:1:in .*boom at boot \(RuntimeError\)/, failure.message)
  end

  # A crash after the start (the engine finds the port closed) is said with
  # the line of the server's log that explains it, not only with a tail that
  # a Ruby [BUG] report's memory map fills (Iodine under TLS, fresh-check at
  # 26db11d).
  def test_a_crash_under_load_is_said_with_the_logs_crash_line
    app = user_app(%(n = 0\nrun ->(_env) { (n += 1) == 300 ? Process.kill("SEGV", Process.pid) : [200, {}, ["ok"]] }\n))
    out = arena("run", "--app", app, "--servers", "puma:workers=0,threads=1", "--workload", "/", "-c", "2", "-d", "1", "-w", "0.2",
      "--rounds", "1", timeout: 120)
    record = out.results["servers"].find { |s| s["status"] == "failed" }
    refute_nil record, out.describe
    assert_match(/\Aits log: \[BUG\] Segmentation fault.*; /, record["error"])
    assert_match(/^FAILED puma:\S+: its log: \[BUG\] Segmentation fault/, out.stderr)
    # Its tail shows the report's [BUG] line and Ruby frames, not its memory map.
    tail = record["log_tail"]
    assert(tail.any? { |line| line.include?("[BUG] Segmentation fault") }, tail.join("\n"))
    refute(tail.any? { |line| line.match?(/\A\h+-\h+ [r-][w-][x-][ps-] /) }, tail.join("\n"))
  end

  private

  # [Launch::LocalServer::Failed, seconds the start took]
  def start(key, settings, config_ru)
    app = Arena::Bundle::AppSource.user(user_app(config_ru, gems: %w[puma rack unicorn falcon]))
    run = Arena::Launch::LocalServer.new(adapter: Arena::Servers.fetch(key).new(settings: settings), app: app, bind: Arena::System::Bind.tcp,
      dir: File.join(@tmp, "server"), ready_timeout: READY)
    started = Arena::Support::Clock.now
    failure = assert_raises(Arena::Launch::LocalServer::Failed) { run.start }
    [failure, Arena::Support::Clock.now - started]
  end
end
