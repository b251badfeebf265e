# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# Owning processes: a spawn is never lost to a Ctrl-C, a stop leaves no
# process of the group behind, and a server start that ends early for any
# reason stops what it spawned. Real processes (sh, sleep, ruby); the only
# fake is an adapter that never becomes ready.
class ProcessGroupTest < Minitest::Test
  # Stands in for a server that starts but never answers.
  class SilentAdapter
    def label = "silent"

    def upstreams(bind) = [bind]

    def command(app:, bind:, dir:) = ["ruby", "-e", "sleep 60", "--", dir]

    def env(app:) = {}

    def ready_timeout = 30

    def crash_patterns = Arena::Verdicts::CrashLine::GENERIC

    def transient_boot_patterns = []

    def envelope = Arena::Plan::Envelope::NONE

    def stop_signal = "TERM"
  end

  # An app with no database to count connections of (not Rails, no arena-db.sql).
  App = Struct.new(:dir) do
    def builtin = nil

    def rails? = false
  end

  def setup
    @dir = Dir.mktmpdir("process-group-test")
  end

  def teardown
    left = alive_with(@dir)
    left.each { |pid| kill_group(pid) }
    FileUtils.rm_rf(@dir)
    assert_empty left, "processes left behind"
  end

  def test_signals_held_while_spawning_are_delivered_after
    reached = false
    assert_raises(Interrupt) do
      Arena::Support::Signals.deferred do
        Process.kill("INT", Process.pid)
        sleep 0.2
        reached = true
      end
      sleep 1 # the signal comes back to this process and is handled here
    end
    assert reached, "the block ran to its end before the Interrupt"
  end

  def test_stop_leaves_no_process_of_the_group
    group = Arena::System::ProcessGroup.new(["sh", "-c", "trap '' TERM; sleep 60 & sleep 60; : #{@dir}"],
      log_path: File.join(@dir, "log"))
    group.start
    wait_until { group.tree.size >= 3 }
    members = group.tree
    assert_operator members.size, :>=, 3, "sh and its two sleeps"
    group.stop(grace: 0.4)
    assert_empty members.select { |pid| live?(pid) }, "a member ignored TERM and outlived stop"
  end

  # A group nobody holds (a signal came right after its spawn) is stopped
  # when Arena exits, whatever ends it.
  def test_an_exit_stops_every_group_still_registered
    lib = File.expand_path("../../../lib", __dir__)
    script = "require 'arena'; Arena::System::ProcessGroup.new(['sh', '-c', 'sleep 60', ARGV[0]], log_path: ARGV[0] + '/log').start; " \
      "sleep 0.2; raise Interrupt"
    pid = Process.spawn("ruby", "-I", lib, "-e", script, @dir, err: File::NULL)
    Process.wait(pid)
    refute $?.success?
    assert_empty alive_with(@dir), "a spawned group outlived the process that started it"
  end

  # Ctrl-C while the server boots: start unwinds, and what it spawned is gone.
  def test_a_start_interrupted_during_readiness_stops_its_server
    run = Arena::Launch::LocalServer.new(adapter: SilentAdapter.new, app: App.new(@dir), bind: Arena::System::Bind.tcp,
      dir: File.join(@dir, "server"), machine: Arena::Plan::Machine.new(cores: 2))
    main = Thread.current
    interrupter = Thread.new do
      sleep 0.05 until run.group&.pid && live?(run.group.pid)
      sleep 0.2
      main.raise(Interrupt)
    end
    assert_raises(Interrupt) { run.start }
    interrupter.join
    refute live?(run.group.pid), "the server outlived the interrupted start"
  end

  def test_a_server_never_ready_is_stopped_and_reported
    run = Arena::Launch::LocalServer.new(adapter: SilentAdapter.new, app: App.new(@dir), bind: Arena::System::Bind.tcp,
      dir: File.join(@dir, "server"), machine: Arena::Plan::Machine.new(cores: 2), ready_timeout: 0.5)
    error = assert_raises(Arena::Launch::LocalServer::Failed) { run.start }
    assert_match(/silent not ready after 0.5s/, error.message)
    refute live?(run.group.pid)
  end

  # The fresh start after a crash or restart gets a port of its own unless
  # one was pinned; the old server's closed connections may hold the old one.
  def test_successor_takes_a_fresh_port_unless_pinned
    run = Arena::Launch::LocalServer.new(adapter: SilentAdapter.new, app: App.new(@dir), bind: Arena::System::Bind.tcp,
      dir: @dir, machine: Arena::Plan::Machine.new(cores: 2))
    refute_equal run.bind.port, run.successor.bind.port
    with_env = Arena::Launch::LocalServer.new(adapter: SilentAdapter.new, app: App.new(@dir), bind: Arena::System::Bind.tcp, dir: @dir,
      machine: Arena::Plan::Machine.new(cores: 2), env: {"SECRET_KEY_BASE" => "x"})
    assert_equal({"SECRET_KEY_BASE" => "x"}, with_env.successor.env)
    assert_equal run.bind.port, run.successor(keep_port: true).bind.port
    unix = Arena::System::Bind.unix(File.join(@dir, "s.sock"))
    assert_equal unix, Arena::Launch::LocalServer.new(adapter: SilentAdapter.new, app: App.new(@dir), bind: unix, dir: @dir,
      machine: Arena::Plan::Machine.new(cores: 2)).successor.bind
  end

  private

  def kill_group(pid)
    Process.kill("KILL", -Process.getpgid(pid))
  rescue SystemCallError
    nil
  end

  def live?(pid)
    state = Arena::System::Procfs.stat(pid)&.state
    !state.nil? && state != "Z"
  end

  def alive_with(marker)
    Arena::System::Procfs.all_stats.select { |s| s.state != "Z" && Arena::System::Procfs.cmdline(s.pid).include?(marker) }.map(&:pid)
  end

  # Waits for the condition, and fails the test if it never comes (a silent
  # timeout let a test go on with nothing to check).
  def wait_until(seconds = 5)
    deadline = Arena::Support::Clock.now + seconds
    until yield
      flunk "condition not met within #{seconds} s" if Arena::Support::Clock.now > deadline
      sleep 0.02
    end
  end
end
