# frozen_string_literal: true

require_relative "../core"
require_relative "../support/affinity"
require_relative "../support/clock"
require_relative "../support/signals"
require_relative "procfs"
require_relative "watchdog"

module Arena
  module System
    # One spawned program in a process group of its own. This is the only place
    # Arena forks: servers, nginx and the load engine all start here, and all stop
    # the same way: TERM to the whole group, KILL after a deadline, then reaping.
    #
    # Ownership: the caller holds the System::ProcessGroup before calling start, and
    # start records the pid before any Ctrl-C (Interrupt) or TERM can unwind
    # the stack (Signals.deferred), so whatever ensure/rescue the caller has
    # stops what was spawned. stop itself runs to the end the same way, and
    # returns only once no process of the group is left (a fresh server on the
    # same port must not meet the old listener). A caller that keeps the group
    # only once start returns (the engine's Run) may still lose it to a signal
    # delivered right after: every started group is registered until it is
    # stopped, and an exit of Arena (Ctrl-C, TERM, an error) stops what is left.
    class ProcessGroup
      attr_reader :pid, :argv, :log_path, :cgroup

      LIVE = {} # pid => group, from spawn until stop
      OWNER = Process.pid # a forked child must not stop its parent's groups

      def self.live = LIVE.values

      at_exit { LIVE.values.each { |group| group.stop(grace: 2) } if Process.pid == OWNER }

      # cgroup: an Envelope::Cgroup the program enters before it execs (a
      # wrapper writes its pid into cgroup.procs), removed once the group stops.
      # log_cap: a Launch::LogCap that keeps the log under its size while the program runs.
      def initialize(argv, log_path:, env: {}, chdir: Dir.pwd, cpus: nil, cgroup: nil, log_cap: nil)
        # A String would go to /bin/sh: only an array of words is ever run.
        unless argv.is_a?(Array) && !argv.empty? && argv.all?(String)
          raise ArgumentError, "a program's argv is a non-empty array of strings, not #{argv.class}"
        end
        cpus = Support::Affinity.for_child(cpus)
        @argv = cpus ? ["taskset", "-c", cpus.to_s, *argv] : argv
        @argv = cgroup.wrap(@argv) if cgroup
        @cgroup = cgroup
        @env = env
        @chdir = chdir
        @log_path = log_path
        @log_cap = log_cap
        @status = nil
      end

      # input: what the program reads (an agent's or a waiting engine's pipe).
      def start(out: nil, input: File::NULL)
        @log = File.open(@log_path, "a")
        Support::Signals.deferred do
          # [name, name] as the program: never a shell, even for one word.
          @pid = Process.spawn(@env, [@argv.first, @argv.first], *@argv.drop(1), pgroup: true, chdir: @chdir,
            in: input, out: out || @log, err: @log, close_others: true)
          LIVE[@pid] = self
          System::Watchdog.watch(@pid) if Process.pid == OWNER
        end
        @log_watch = @log_cap&.watch(@log_path)
        self
      rescue SystemCallError => e
        @log&.close
        @cgroup&.remove
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
        deadline = Support::Clock.now + timeout
        sleep 0.02 while alive? && Support::Clock.now < deadline
        exited
      end

      # Once the leader is reaped its pid may be another program's: nothing
      # is looked up or signalled by it any more.
      def reaped? = !@status.nil?

      def tree
        return [] if @pid.nil? || reaped?
        System::Procfs.tree(@pid)
      end

      def signal(sig, pids = [@pid])
        return false if exited
        pids.each { |p| Process.kill(sig, p) }
        true
      rescue Errno::ESRCH
        false
      end

      # TERM goes to the leader first: a master stops its own workers in order
      # (Passenger's parts race each other if all are told at once). Whatever
      # is left after half the grace gets TERM itself, then KILL at the end.
      # signal: what the leader is told first, for a server that stops cleanly
      # on another one (WEBrick through rackup: INT).
      def stop(grace: 10, signal: "TERM")
        unless @pid
          @cgroup&.remove
          return @log&.close
        end
        Support::Signals.deferred do
          survivors = tree
          kill_quietly(signal, @pid) unless exited
          survivors = await(survivors, grace / 2.0)
          signal_group("TERM") unless survivors.empty?
          survivors = await(survivors + tree, grace / 2.0)
          signal_group("KILL")
          survivors.each { |p| kill_quietly("KILL", p) }
          wait(timeout: 2)
          # KILLed processes take a moment to exit and release their sockets;
          # the survivors count too (an orphan has left the tree once its
          # parent was reaped, but it may not have died yet).
          await(survivors + tree, 2)
          LIVE.delete(@pid)
          System::Watchdog.forget(@pid)
        ensure
          # Anything that left the tree but not the cgroup goes with it.
          @cgroup&.remove
          @log&.close
          stop_log_watch
        end
        exited
      end

      def log_tail(lines = 20)
        File.readlines(@log_path).last(lines).map(&:chomp)
      rescue Errno::ENOENT
        []
      end

      private

      def stop_log_watch
        return unless @log_watch
        @log_watch.kill.join
        @log_watch = nil
        @log_cap.trim(@log_path)
      end

      # Waits until none of `pids` is alive (zombies count as gone); returns
      # those still alive at the deadline.
      def await(pids, seconds)
        deadline = Support::Clock.now + seconds
        loop do
          exited
          pids = pids.uniq.select { |p| System::Procfs.stat(p)&.state.then { |state| state && state != "Z" } }
          return pids if pids.empty? || Support::Clock.now >= deadline
          sleep 0.02
        end
      end

      # The group id stays taken while any member lives, so -pgid is safe
      # after the leader is reaped; its pid alone is not.
      def signal_group(sig)
        kill_quietly(sig, -@pid) if !reaped? || System::Procfs.all_stats.any? { |s| s.pgrp == @pid && s.state != "Z" }
        # Descendants that moved to a group of their own are told too.
        tree.each { |p| kill_quietly(sig, p) unless p == @pid }
      end

      def kill_quietly(sig, target)
        Process.kill(sig, target)
      rescue Errno::ESRCH, Errno::EPERM
        nil
      end
    end
  end
end
