# frozen_string_literal: true

require "set"
require_relative "../results/measurement"
require_relative "../results/noise_figures"
require_relative "../support/clock"
require_relative "../system/procfs"
require_relative "../verdicts/noise"

module Arena
  module Probes
    # What else the machine did while a measurement ran: the hypervisor's
    # steal (on a VM the neighbours show up there), other processes' CPU (not
    # the server's tree, not the loader, not Arena), the load average before
    # it and the CPU frequency governor where the system shows one. Two
    # snapshots of /proc, one before and one after; the figures are a pure
    # function of the two (Noise.between), so the suite checks them on fixtures;
    # what they mean is Verdicts::Noise's.
    module Noise
      # cpu: the aggregate /proc/stat line's fields; ticks: pid => utime+stime;
      # reaped: the CPU ticks of the children Arena itself has reaped (the
      # engine's runs, which start and end inside a measurement).
      Snapshot = Struct.new(:t, :cpu, :ticks, :load1, :reaped, keyword_init: true)

      # One measurement's watch: start before the load, stop after it.
      # ours: -> pids whose CPU is the measurement's own (called at both ends).
      class Watch
        def initialize(ours:, root: "/proc")
          @ours = ours
          @root = root
        end

        def start
          @seen = @ours.call.to_set
          @before = Noise.snapshot(root: @root)
          self
        end

        def stop
          after = Noise.snapshot(root: @root)
          ours = @seen | @ours.call | [Process.pid]
          figures = Noise.between(@before, after, ours: ours, governor: Noise.governor)
          Results::NoiseRecord.new(figures: figures, verdict: Verdicts::Noise.judge(figures)).freeze
        end
      end

      module_function

      def snapshot(root: "/proc", own: Process.pid)
        Snapshot.new(t: Support::Clock.now, cpu: cpu_line(root), ticks: ticks(root), load1: load1(root),
          reaped: System::Procfs.stat(own, root: root)&.children.to_i).freeze
      end

      # ours: the pids whose CPU is the measurement's own (server tree, front,
      # Arena). A process seen at either end counts by its own ticks (one
      # that started during the run, in full). One that came and went between
      # the snapshots is found in the machine's total: user, nice and system
      # time (not irq and softirq, which loopback traffic of our own fills)
      # less every process seen and the children Arena reaped (the engine).
      # Ours that ended during the run count as other: none does but the
      # engine, which Arena reaps.
      def between(before, after, ours:, governor: nil, own: Process.pid)
        seconds = after.t - before.t
        total = after.cpu.first(8).sum - before.cpu.first(8).sum
        steal = (after.cpu[7].to_i - before.cpu[7].to_i)
        spent = ->(pid, t) { [t - before.ticks.fetch(pid, 0), 0].max }
        other = after.ticks.sum { |pid, t| ours.include?(pid) ? 0 : spent.call(pid, t) }
        mine = after.ticks.sum { |pid, t| ours.include?(pid) ? spent.call(pid, t) : 0 } + [after.reaped.to_i - before.reaped.to_i, 0].max
        busy = after.cpu.first(3).sum - before.cpu.first(3).sum
        unseen = [busy - mine - other, 0].max
        pct = ->(ticks) { seconds.positive? ? (100.0 * ticks / System::Procfs::CLK_TCK / seconds).round(1) : 0.0 }
        Results::NoiseFigures.new(
          steal_pct: total.positive? ? (100.0 * steal / total).round(2) : 0.0,
          other_cpu_pct: pct.call(other + unseen), unseen_cpu_pct: pct.call(unseen),
          arena_cpu_pct: after.ticks.key?(own) ? pct.call(spent.call(own, after.ticks[own])) : nil,
          load_before: before.load1, governor: governor, seconds: seconds.round(3)
        ).freeze
      end

      def governor(root: "/sys/devices/system/cpu")
        File.read(File.join(root, "cpu0/cpufreq/scaling_governor")).strip
      rescue SystemCallError
        nil
      end

      def cpu_line(root)
        File.foreach(File.join(root, "stat")).first.split.drop(1).map(&:to_i).freeze
      rescue SystemCallError
        [].freeze
      end

      def load1(root)
        File.read(File.join(root, "loadavg")).split.first.to_f
      rescue SystemCallError
        nil
      end

      def ticks(root)
        System::Procfs.all_stats(root: root).to_h { |s| [s.pid, s.utime + s.stime] }.freeze
      end
    end
  end
end
