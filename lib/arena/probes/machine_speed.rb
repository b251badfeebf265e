# frozen_string_literal: true

require_relative "../stats/median"

module Arena
  module Probes
    # How fast the machine is right now, on the server's cores: a fixed
    # amount of CPU work (an integer loop in Ruby, as the servers run Ruby)
    # and of memory traffic (a 24 MiB copy and a 24 MiB scan, past the caches
    # of this machine), each timed twice and the faster kept, about 20 ms of
    # work in all. It runs between loads, in a short process of its own
    # pinned to the server's cores (Arena's own process is pinned to the
    # engine's), so the reading is of the cores the figures were taken on.
    #
    # On a VM whose speed changes for minutes at a time (issue 44: the same
    # config read 654, then 274-289, then 630 req/s within ten minutes), a
    # round's figures carry the machine's speed: the reading says when they
    # were taken slow. The work is fixed, so a reading in milliseconds is
    # comparable across rounds of one machine only; Reading#ratio is a
    # reading against the run's median.
    module MachineSpeed
      CPU_LOOPS = 150_000
      MEMORY_BYTES = 24 << 20
      REPEATS = 2
      # Beyond this a round is flagged (issue 44).
      OFF = 0.15

      # cpu_ms, memory_ms: the faster of the repeats; at: seconds since the run began.
      Reading = Struct.new(:cpu_ms, :memory_ms, keyword_init: true) do
        def total_ms = cpu_ms + memory_ms

        # The machine's speed against `median_ms` (a reading's total): 1.0 at
        # the median, 0.8 when this round's work took 25% longer.
        def speed(median_ms) = (median_ms.to_f / total_ms).round(3)

        def off?(median_ms) = (speed(median_ms) - 1).abs > OFF
      end

      module_function

      # The work, timed: [cpu_ms, memory_ms] (run in the reading's own process).
      def work
        source = "\1" * MEMORY_BYTES
        target = "\2" * MEMORY_BYTES # both written once before timing: no first-touch page faults timed
        cpu = Array.new(REPEATS) { timed { spin } }.min
        memory = Array.new(REPEATS) do
          timed do
            target[0, MEMORY_BYTES] = source
            target.index("\0")
          end
        end.min
        [cpu.round(3), memory.round(3)]
      end

      def spin
        x = 0
        i = 0
        while i < CPU_LOOPS
          x = (x * 31 + i) & 0xffff
          i += 1
        end
        x
      end

      def timed
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        yield
        (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000.0
      end

      # A reading on `cpus` (taskset's list; nil: wherever the scheduler
      # puts it), or nil when it could not be taken (said by the caller).
      def read(cpus:, timeout: 5.0)
        argv = [RbConfig.ruby, "--disable-gems", "-r", __FILE__, "-e", "print Arena::Probes::MachineSpeed.work.join(' ')"]
        argv = ["taskset", "-c", cpus.to_s, *argv] if cpus
        reader, writer = IO.pipe
        pid = Process.spawn(*argv, out: writer, err: File::NULL, in: File::NULL, pgroup: true, close_others: true)
        writer.close
        text = IO.select([reader], nil, nil, timeout) ? reader.read : nil
        cpu, memory = text.to_s.split.map { |x| Float(x, exception: false) }
        (cpu && memory) ? Reading.new(cpu_ms: cpu, memory_ms: memory).freeze : nil
      rescue SystemCallError
        nil
      ensure
        reader&.close
        writer&.close unless writer&.closed?
        stop(pid) if pid
      end

      # The reading's process group, TERM then KILL, reaped.
      def stop(pid)
        return if Process.waitpid(pid, Process::WNOHANG)
        Process.kill("TERM", -pid)
        20.times do
          return if Process.waitpid(pid, Process::WNOHANG)
          sleep 0.01
        end
        Process.kill("KILL", -pid)
        Process.waitpid(pid)
      rescue Errno::ESRCH, Errno::ECHILD
        nil
      end

      # The median of the readings' totals.
      def median_ms(readings) = Stats.median(readings.compact.map(&:total_ms))
    end
  end
end
