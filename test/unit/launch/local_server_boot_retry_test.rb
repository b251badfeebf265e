# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# A boot that ends with a line its adapter names as the server's own start
# timing out (Passenger's watchdog on a loaded machine: "Daemon 'PassengerAgent
# watchdog' failed to start in time") is started once more, and the record
# says so; a crash of the app, or the same timeout twice, is not retried.
# Real processes: a small Ruby server that counts its starts in its
# directory and, per start, writes the given line and exits 1, or answers.
class BootRetryTest < Minitest::Test
  cover "Arena::Launch::LocalServer*"
  cover "Arena::Launch::BootLog*"

  TIMEOUT = "/usr/lib/ruby/vendor_ruby/phusion_passenger/vendor/daemon_controller.rb:419:in `start_without_locking': " \
    "Daemon 'PassengerAgent watchdog' failed to start in time. (PhusionPassenger::DaemonController::StartTimeout)"
  APP_CRASH = "/app/config.ru:1:in `block in <main>': boom at boot (RuntimeError)"

  # Start n (1, 2, ...) writes fails[n - 1] and exits 1, or, past the end
  # of fails, answers HTTP on the port.
  SERVER = <<~RUBY
    require "socket"
    dir, port, *fails = ARGV
    File.write(File.join(dir, "starts"), "x", mode: "a")
    line = fails[File.size(File.join(dir, "starts")) - 1]
    if line
      $stderr.puts "booting", line
      exit 1
    end
    server = TCPServer.new("127.0.0.1", Integer(port))
    loop do
      client = server.accept
      client.readpartial(4096)
      client.write("HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nConnection: close\\r\\n\\r\\nok")
      client.close
    end
  RUBY

  class FlakyAdapter
    def initialize(fails) = @fails = fails

    def label = "flaky"

    def upstreams(bind) = [bind]

    def command(app:, bind:, dir:) = ["ruby", "-e", SERVER, dir, bind.port.to_s, *@fails]

    def env(app:) = {}

    def ready_timeout = 10

    def crash_patterns = Arena::Verdicts::CrashLine::GENERIC

    def transient_boot_patterns = Arena::Servers::Passenger.new.transient_boot_patterns

    def envelope = Arena::Plan::Envelope::NONE

    def stop_signal = "TERM"
  end

  # An app with no database to count connections of (not Rails, no arena-db.sql).
  App = Struct.new(:dir) do
    def builtin = nil

    def rails? = false
  end

  def setup
    @dir = Dir.mktmpdir("boot-retry-test")
  end

  def teardown
    @run&.stop
    FileUtils.rm_rf(@dir)
  end

  def run_with(*fails)
    @run = Arena::Launch::LocalServer.new(adapter: FlakyAdapter.new(fails), app: App.new(@dir), bind: Arena::System::Bind.tcp,
      dir: @dir, machine: Arena::Plan::Machine.new(cores: 2))
  end

  def starts = File.size?(File.join(@dir, "starts")).to_i

  def test_a_named_start_timeout_is_started_once_more_and_said
    run = run_with(TIMEOUT)
    run.start
    assert_equal 2, starts
    assert_equal "Daemon 'PassengerAgent watchdog' failed to start in time. (PhusionPassenger::DaemonController::StartTimeout)",
      run.boot_retry
    assert_equal run.boot_retry, run.to_h[:boot_retry]
    assert_equal "ok", Arena::Verify::HttpProbe.new(run.bind).get("/").body
  end

  # The same run started again (stopped first) says only what its own start did.
  def test_a_later_start_of_the_same_run_forgets_the_retry_before_it
    run = run_with(TIMEOUT)
    run.start
    assert_equal 2, starts
    run.stop
    run.start
    assert_equal 3, starts
    assert_nil run.boot_retry
  end

  def test_a_start_that_needs_no_retry_says_none
    run = run_with
    run.start
    assert_equal 1, starts
    assert_nil run.boot_retry
    refute run.to_h.key?(:boot_retry)
  end

  def test_the_same_timeout_twice_fails_after_one_retry
    run = run_with(TIMEOUT, TIMEOUT, TIMEOUT)
    error = assert_raises(Arena::Launch::LocalServer::Failed) { run.start }
    assert_equal 2, starts
    assert_match(/\Aflaky exited during boot again \(exit status 1\): Daemon 'PassengerAgent watchdog' failed to start in time/, error.message)
  end

  def test_a_crash_of_the_app_is_never_retried
    error = assert_raises(Arena::Launch::LocalServer::Failed) { run_with(APP_CRASH).start }
    assert_equal 1, starts
    assert_equal "flaky exited during boot (exit status 1): #{APP_CRASH}", error.message
    refute error.transient
  end

  # A crash line beside the timeout: the crash is what the user must read.
  def test_a_crash_line_beside_the_timeout_is_not_retried
    error = assert_raises(Arena::Launch::LocalServer::Failed) { run_with("x.rb:1: [BUG] Segmentation fault\n#{TIMEOUT}").start }
    assert_equal 1, starts
    assert_match(/\[BUG\] Segmentation fault/, error.message)
  end

  def test_passengers_pattern_names_its_start_timeout_and_nothing_of_the_app
    patterns = Arena::Servers::Passenger.new.transient_boot_patterns
    assert Arena::Verdicts::CrashLine.find([TIMEOUT], patterns: patterns)
    daemonize = TIMEOUT.sub("failed to start in time", "didn't daemonize in time")
    assert Arena::Verdicts::CrashLine.find([daemonize], patterns: patterns)
    assert_nil Arena::Verdicts::CrashLine.find([APP_CRASH, "Daemon 'x' failed to start. (PhusionPassenger::DaemonController::StartError)"],
      patterns: patterns)
    Arena::Servers.all.reject { |k| k == Arena::Servers::Passenger }.each do |klass|
      assert_empty klass.new.transient_boot_patterns, klass.key
    end
  end

  # Launch::BootLog reads the named line only from this start, and not once a
  # crash line was read.
  def test_the_boot_log_says_the_transient_line_of_this_start_only
    path = File.join(@dir, "server.log")
    File.write(path, "#{TIMEOUT}\n") # the start before
    patterns = Arena::Servers::Passenger.new.transient_boot_patterns
    log = Arena::Launch::BootLog.new(path, transient: patterns)
    assert_nil log.crash(final: true)
    assert_nil log.transient
    File.write(path, "booting\n#{TIMEOUT}\n", mode: "a")
    log.crash
    assert_equal TIMEOUT, log.transient
    crashed = Arena::Launch::BootLog.new(path, transient: patterns)
    File.write(path, "#{TIMEOUT}\nx.rb:1: [BUG] Segmentation fault\n", mode: "a")
    assert_equal "[BUG] Segmentation fault (x.rb:1)", crashed.crash
    assert_nil crashed.transient
  end
end
