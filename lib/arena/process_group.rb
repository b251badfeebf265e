# frozen_string_literal: true

require_relative "procfs"

module Arena
  # One spawned program in a process group of its own. This is the only place
  # Arena forks: servers, nginx and the load engine all start here, and all stop
  # the same way: TERM to the whole group, KILL after a deadline, then reaping.
  class ProcessGroup
    attr_reader :pid, :argv, :log_path

    def initialize(argv, log_path:, env: {}, chdir: Dir.pwd, cpus: nil)
      @argv = cpus ? ["taskset", "-c", cpus.to_s, *argv] : argv
      @env = env
      @chdir = chdir
      @log_path = log_path
      @status = nil
    end

    # input: what the program reads (an agent's or a waiting engine's pipe).
    def start(out: nil, input: File::NULL)
      @log = File.open(@log_path, "a")
      @pid = Process.spawn(@env, *@argv, pgroup: true, chdir: @chdir, in: input,
        out: out || @log, err: @log, close_others: true)
      self
    rescue SystemCallError => e
      @log&.close
      raise Error, "cannot start #{@argv.first}: #{e.message}"
    end

    # Exit status once the leader has exited, else nil. Never blocks.
    def exited
      return @status if @status
      _, status = Process.waitpid2(@pid, Process::WNOHANG)
      @status = status
    rescue Errno::ECHILD
      @status ||= :unknown
    end

    def alive?
      exited.nil?
    end

    def wait(timeout:)
      deadline = Clock.now + timeout
      sleep 0.02 while alive? && Clock.now < deadline
      exited
    end

    def tree
      Procfs.tree(@pid)
    end

    def signal(sig, pids = [@pid])
      pids.each { |p| Process.kill(sig, p) }
      true
    rescue Errno::ESRCH
      false
    end

    # TERM goes to the leader first: a master stops its own workers in order
    # (Passenger's parts race each other if all are told at once). Whatever
    # is left after half the grace gets TERM itself, then KILL at the end.
    def stop(grace: 10)
      return unless @pid
      survivors = tree
      kill_quietly("TERM", @pid)
      survivors = await(survivors, grace / 2.0)
      signal_group("TERM") unless survivors.empty?
      survivors = await(survivors + tree, grace / 2.0)
      signal_group("KILL")
      survivors.each { |p| kill_quietly("KILL", p) }
      wait(timeout: 2)
    ensure
      @log&.close
    end

    def log_tail(lines = 20)
      File.readlines(@log_path).last(lines).map(&:chomp)
    rescue Errno::ENOENT
      []
    end

    private

    # Waits until none of `pids` is alive (zombies count as gone); returns
    # those still alive at the deadline.
    def await(pids, seconds)
      deadline = Clock.now + seconds
      loop do
        exited
        pids = pids.uniq.select { |p| Procfs.stat(p)&.state.then { |state| state && state != "Z" } }
        return pids if pids.empty? || Clock.now >= deadline
        sleep 0.02
      end
    end

    def signal_group(sig)
      kill_quietly(sig, -@pid)
      # Descendants that moved to a group of their own are told too.
      tree.each { |p| kill_quietly(sig, p) unless p == @pid }
    end

    def kill_quietly(sig, target)
      Process.kill(sig, target)
    rescue Errno::ESRCH, Errno::EPERM
      nil
    end
  end

  module Clock
    def self.now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end
  end
end
