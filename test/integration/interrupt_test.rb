# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"
require "securerandom"

# Ctrl-C at any moment of a run leaves nothing running: before anything is
# spawned, just after a server or nginx is spawned (while it boots), and
# during load, with and without nginx in front. Each run carries a marker in
# its environment, which every process Arena spawns inherits (servers,
# workers, the engine), so a leftover is found even when it renamed itself
# (uWSGI's "uWSGI worker 1") or left Arena's process group; nginx writes its
# title over its environment, so the run directory in its command line finds
# it.
class InterruptTest < Arena::ArenaCase
  MARK = "ARENA_INTERRUPT_MARK"

  # [name, arena arguments, when to send SIGINT]
  CASES = [
    ["planning", %w[--servers puma], [:after, 0.15]],
    ["server spawned", %w[--servers puma], [:file, "servers/*/server.log"]],
    ["server booting", %w[--servers uwsgi], [:file, "servers/*/server.log", 0.1]],
    ["during load", %w[--servers puma], [:file, "raw/engine.log", 0.4]],
    ["nginx spawned", %w[--servers thin --front nginx], [:file, "servers/*/nginx/nginx.conf"]],
    ["nginx booting", %w[--servers thin --front nginx], [:file, "servers/*/nginx/nginx.log", 0.01]],
    ["load behind nginx", %w[--servers uwsgi --front nginx], [:file, "raw/engine.log", 0.4]],
    ["at 1.2 s behind nginx", %w[--servers puma --front nginx], [:after, 1.2]],
    ["at 1.8 s behind nginx", %w[--servers puma --front nginx], [:after, 1.8]]
  ].freeze

  CASES.each_with_index do |(name, args, trigger), i|
    define_method("test_interrupt_#{i}_#{name.tr(" .", "__")}") { interrupt_at(args, trigger) }
  end

  # SIGKILL cannot be caught: Arena's watchdog (lib/arena/system/watchdog.rb) sees
  # its pipe close and stops the server's group, workers and nginx included.
  def test_sigkill_during_load_leaves_no_server
    mark = SecureRandom.hex(8)
    out = File.join(@tmp, "run")
    output = File.join(@tmp, "output")
    pid = Process.spawn({MARK => mark}, EXE, "run", "--servers", "puma:workers=2", "--front", "nginx", "--workload", "server",
      "-d", "3", "-w", "0.2", "--settle-timeout", "2", "--out", out, chdir: ROOT, out: output, err: output)
    fired = wait_for([:file, "raw/engine.log", 0.3], out, output)
    refute_empty marked(mark), "nothing was running at the kill"
    Process.kill("KILL", pid)
    assert wait_exit(pid, 10)
    deadline = now + 8
    sleep 0.1 until (marked(mark) | leftovers(out)).empty? || now > deadline
    left = marked(mark) | leftovers(out)
    assert_empty left, "left running after SIGKILL (#{fired}): #{left.join("; ")}"
  ensure
    (marked(mark) | leftovers(out)).each { |line| kill_group(line.to_i) } if mark
  end

  private

  def interrupt_at(args, trigger)
    mark = SecureRandom.hex(8)
    out = File.join(@tmp, "run")
    output = File.join(@tmp, "output")
    pid = Process.spawn({MARK => mark}, EXE, "run", *args, "--rounds", "1", "--workload", "server", "-d", "2", "-w", "0.2", "--settle-timeout", "2",
      "--out", out, chdir: ROOT, out: output, err: output)
    fired = wait_for(trigger, out, output)
    Process.kill("INT", pid)
    status = wait_exit(pid, 30)
    assert status, "arena did not exit within 30 s of SIGINT"
    left = marked(mark) | leftovers(out)
    assert_empty left, "left running after SIGINT (#{fired}): #{left.join("; ")}"
  ensure
    Process.kill("KILL", pid) if pid && !status
    # Whatever leaked is stopped here, so a failure does not outlive the test.
    (marked(mark) | leftovers(out)).each { |line| kill_group(line.to_i) } if mark
  end

  def kill_group(pid)
    Process.kill("KILL", -Process.getpgid(pid))
  rescue SystemCallError
    nil
  end

  # Returns what happened when SIGINT was sent, for the failure message.
  def wait_for((kind, what, delay), out, output)
    started = now
    deadline = started + 25
    case kind
    when :after then sleep what
    when :file, :output
      until (kind == :file) ? Dir.glob(File.join(out, what)).any? : File.read(output).include?(what)
        flunk "#{what} never appeared" if now > deadline
        sleep 0.005
      end
      sleep delay.to_f
    end
    format("%s %s at %.2f s", kind, what, now - started)
  end

  def wait_exit(pid, seconds)
    deadline = now + seconds
    loop do
      _, status = Process.waitpid2(pid, Process::WNOHANG)
      return status if status
      return nil if now > deadline
      sleep 0.02
    end
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  # Live processes whose environment carries this run's marker.
  def marked(mark)
    needle = "#{MARK}=#{mark}"
    Dir.children("/proc").grep(/\A\d+\z/).filter_map do |pid|
      next if File.read("/proc/#{pid}/stat")[/\) (\w)/, 1] == "Z"
      next unless File.binread("/proc/#{pid}/environ").split("\0").include?(needle)
      "#{pid} #{File.read("/proc/#{pid}/cmdline").tr("\0", " ").strip}"
    rescue SystemCallError
      nil
    end
  end
end
