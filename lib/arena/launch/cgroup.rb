# frozen_string_literal: true

require_relative "../core"
require_relative "../plan/envelope"
require_relative "../support/clock"

module Arena
  module Launch
    # One server run's cgroup (a directory per v1 hierarchy, one in v2): its
    # limits, its counters, the wrapper that puts a process in it from its
    # first instruction, and its removal. Made by Cgroups#create, owned by the
    # server's System::ProcessGroup, which removes it after the last process is gone.
    class Cgroup
      # Counters as the kernel keeps them since the cgroup was made; a
      # measurement takes the difference of two (Reading#since).
      Reading = Struct.new(:periods, :throttled_periods, :throttled_us, :peak_bytes, :oom_kills, :current_bytes, keyword_init: true) do
        def since(before)
          self.class.new(periods: periods.to_i - before.periods.to_i, throttled_periods: throttled_periods.to_i - before.throttled_periods.to_i,
            throttled_us: throttled_us.to_i - before.throttled_us.to_i, peak_bytes: peak_bytes, oom_kills: oom_kills.to_i - before.oom_kills.to_i,
            current_bytes: current_bytes).freeze
        end
      end

      # The wrapper a server is spawned through: it writes its own pid into
      # every cgroup.procs given (before `--`), then execs the server with the
      # same pid, so the server and all it forks are inside from the start.
      # A fixed script; every argument reaches it as an array element.
      ENTER = 'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"'

      attr_reader :envelope, :dirs, :version

      def initialize(envelope:, dirs:, files:, version:)
        @envelope = envelope
        @dirs = dirs
        @files = files
        @version = version
      end

      def self.rmdir(dir)
        Dir.rmdir(dir)
        true
      rescue Errno::ENOENT
        true
      rescue SystemCallError
        false
      end

      # Writes a control file; a kernel refusal is the run's Error in one line.
      def self.write(path, value)
        File.write(path, value.to_s)
      rescue SystemCallError => e
        raise Error, "envelope: cannot write #{value.to_s.strip} to #{path} (#{e.message})"
      end

      def self.read(path)
        File.read(path)
      rescue SystemCallError
        nil
      end

      # "key value" lines (cpu.stat, memory.events, memory.oom_control) -> {key => Integer}.
      def self.keyed(text) = text.to_s.each_line.filter_map { |l| l.split(" ", 2).then { |k, v| v && [k, v.to_i] } }.to_h

      def limit!
        (@version == 2) ? limit_v2 : limit_v1
        self
      rescue Error
        remove
        raise
      end

      def wrap(argv) = ["/bin/sh", "-c", ENTER, "arena-envelope", *@files[:procs], "--", *argv]

      def pids = Launch::Cgroup.read(@files[:procs].last).to_s.split.map(&:to_i)

      def read
        cpu = Launch::Cgroup.keyed(Launch::Cgroup.read(@files[:cpu_stat]))
        events = Launch::Cgroup.keyed(Launch::Cgroup.read(@files[:events]))
        throttled_us = (@version == 2) ? cpu["throttled_usec"] : cpu["throttled_time"]&./(1000)
        Reading.new(periods: cpu["nr_periods"], throttled_periods: cpu["nr_throttled"], throttled_us: throttled_us,
          peak_bytes: Launch::Cgroup.read(@files[:peak])&.to_i, oom_kills: events["oom_kill"],
          current_bytes: Launch::Cgroup.read(@files[:current])&.to_i).freeze
      end

      # Starts the peak afresh, so a measurement's peak is its own. v1 resets
      # on a write of 0; v2's memory.peak resets only for the file descriptor
      # that wrote it (Linux 6.12), so there the peak is the cgroup's since
      # its server started. Returns the peak's scope.
      def reset_peak
        return "since-start" unless @version == 1
        File.write(@files[:peak], "0")
        "measurement"
      rescue SystemCallError
        "since-start"
      end

      # Whatever is still inside (a worker that left the server's process
      # group) is killed; then the directories go. Returns true when none is
      # left behind.
      def remove(grace: 2)
        return true if @removed
        deadline = Support::Clock.now + grace
        loop do
          left = pids
          break if left.empty? || Support::Clock.now > deadline
          left.each { |pid| kill(pid) }
          sleep 0.02
        end
        @removed = @dirs.reverse.all? { |dir| self.class.rmdir(dir) }
      end

      private

      def kill(pid)
        Process.kill("KILL", pid)
      rescue Errno::ESRCH, Errno::EPERM
        nil
      end

      def limit_v1
        if envelope.cpus
          Launch::Cgroup.write(@files[:period], Plan::Envelope::PERIOD_US)
          Launch::Cgroup.write(@files[:quota], envelope.quota_us)
        end
        return unless envelope.memory_bytes
        Launch::Cgroup.write(@files[:limit], envelope.memory_bytes)
        # With swap accounting, memory plus swap gets the same limit: no swap inside the envelope.
        Launch::Cgroup.write(@files[:memsw], envelope.memory_bytes) if File.exist?(@files[:memsw])
      end

      # No swap inside the envelope: a pod's limit is its memory.
      def limit_v2
        Launch::Cgroup.write(@files[:cpu_max], "#{envelope.quota_us} #{Plan::Envelope::PERIOD_US}") if envelope.cpus
        return unless envelope.memory_bytes
        Launch::Cgroup.write(@files[:memory_max], envelope.memory_bytes)
        Launch::Cgroup.write(@files[:swap_max], 0) if File.exist?(@files[:swap_max])
      end
    end
  end
end
