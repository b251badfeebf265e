# frozen_string_literal: true

require_relative "../results/measurement"
require_relative "../support/clock"
require_relative "../system/procfs"

module Arena
  module Probes
    # Samples a server's whole process tree on a thread of its own: PSS, RSS and
    # USS from smaps_rollup, CPU from stat, and the process count. The tree is
    # re-read on every sample so respawned workers are counted. PSS is the
    # figure that counts shared copy-on-write pages once; RSS is kept beside it.
    # Its samples are Results::MemorySample values; stop gives the Results::Memory
    # a measurement records.
    class Sampler
      # per_process: also keep each process's figures in every sample (soak,
      # worker-cost), as {"pid", "pss_kb", "rss_kb", "uss_kb"}.
      # interval: seconds between samples; nil samples at start and stop only.
      # A throughput round takes nil: its sampling thread, waking every 0.2 s
      # on the engine's core, preempted the engine: it cost Iodine 10.9%
      # (5.6-15.9%) and 5.6% (2.3-8.7%) of its good req/s in two runs, read at
      # the ends -1.9% (-6.3% to +2.8%) (bench/probe_cost, paired, 10 rounds).
      def initialize(pids:, interval: 0.2, root: "/proc", per_process: false)
        @pids = pids
        @per_process = per_process
        @interval = interval
        @root = root
        @samples = []
        @ticks = {}
      end

      def start
        @started = Support::Clock.now
        @last = @started
        take(first: true)
        return self unless @interval
        @thread = Thread.new do
          loop do
            sleep @interval
            take
          end
        end
        self
      end

      # -> Results::Memory of every sample taken, this last one included.
      def stop
        @thread&.kill&.join
        take
        memory
      end

      def take(first: false)
        now = Support::Clock.now
        pids = @pids.call
        read = pids.filter_map { |pid| System::Procfs.memory(pid, root: @root)&.then { |m| [pid, m] } }
        figures = read.map(&:last)
        busy = cpu_ticks(pids, first: first)
        elapsed = now - @last
        @last = now
        @samples << Results::MemorySample.new(
          t: (now - @started).round(3), procs: pids.size,
          pss_kb: figures.sum(&:pss_kb), rss_kb: figures.sum(&:rss_kb), uss_kb: figures.sum(&:uss_kb),
          cpu_pct: (first || elapsed <= 0) ? 0.0 : (100.0 * busy / System::Procfs::CLK_TCK / elapsed).round(1),
          processes: @per_process ? read.map { |pid, m| {"pid" => pid, "pss_kb" => m.pss_kb, "rss_kb" => m.rss_kb, "uss_kb" => m.uss_kb} } : nil
        ).freeze
      end

      private

      # The tree's peaks and mean PSS over the samples; its CPU is the mean
      # of the samples after the first (the first alone when it is all there
      # is), as the first reads no interval.
      def memory
        measured = @samples.drop(1)
        measured = @samples if measured.empty?
        Results::Memory.new(
          pss_peak_kb: @samples.map(&:pss_kb).max, pss_mean_kb: @samples.sum(&:pss_kb) / @samples.size,
          rss_peak_kb: @samples.map(&:rss_kb).max, uss_peak_kb: @samples.map(&:uss_kb).max,
          cpu_pct: (measured.sum { |s| s.cpu_pct * 1.0 } / measured.size).round(1),
          procs_max: @samples.map(&:procs).max, procs_min: @samples.map(&:procs).min, samples: @samples.dup.freeze
        ).freeze
      end

      # CPU used since the last sample, per process; a process seen for the
      # first time after the start (a respawned worker) counts from zero.
      def cpu_ticks(pids, first:)
        pids.sum do |pid|
          stat = System::Procfs.stat(pid, root: @root)
          next 0 unless stat
          total = stat.utime + stat.stime
          before = @ticks.fetch(pid) { first ? total : 0 }
          @ticks[pid] = total
          [total - before, 0].max
        end
      end
    end
  end
end
