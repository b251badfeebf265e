# frozen_string_literal: true

require_relative "../support/clock"
require_relative "../system/procfs"
require_relative "../verify/http_parser"

module Arena
  module Scenarios
    # Before every measurement the server must be quiet, or the last
    # measurement's queue leaks into this one: its process tree idle over one
    # interval, and one probe of the workload answered within 3x its unloaded
    # latency. Bounded; past the bound the measurement is marked as not settled.
    class Settle
      Outcome = Struct.new(:settled, :seconds, keyword_init: true)

      # Unloaded latency of a workload: sequential probes on an idle server.
      # With fewer than 100 probes the p99 is their maximum, and says so by n.
      Baseline = Struct.new(:n, :p50_us, :p99_us, keyword_init: true)

      class Baseline
        def to_h = super.transform_keys(&:to_s)
      end

      IDLE_CPU_PCT = 10.0
      SLOWER_THAN_UNLOADED = 3.0

      # A tree's CPU ticks (user + system) so far, summed over its processes.
      TREE_TICKS = ->(pids) { pids.sum { |pid| System::Procfs.stat(pid)&.then { |s| s.utime + s.stime } || 0 } }

      # The rules, on values: a tree that used `ticks` of CPU over `seconds` is
      # idle under IDLE_CPU_PCT of a core; a probe is quick within 3x the
      # unloaded p50 (at least 1 ms: a sub-millisecond baseline is all noise).
      def self.idle?(ticks, seconds) = 100.0 * ticks / System::Procfs::CLK_TCK / seconds < IDLE_CPU_PCT

      def self.quick?(took_us, baseline) = baseline.nil? || took_us <= SLOWER_THAN_UNLOADED * [baseline.p50_us, 1000].max

      # p50 and p99 of probe times (the p99 is the maximum under 100 probes).
      def self.baseline_of(times_us)
        return nil if times_us.empty?
        sorted = times_us.sort
        Baseline.new(n: sorted.size, p50_us: sorted[sorted.size / 2], p99_us: sorted[(sorted.size * 0.99).ceil - 1]).freeze
      end

      # ticks: the CPU-tick source (tests give a fake tree).
      def initialize(pids:, probe:, workload:, headers: {}, limit: 30, interval: 0.2, ticks: TREE_TICKS)
        @ticks = ticks
        @pids = pids
        @probe = probe
        @workload = workload
        @headers = headers
        @limit = limit
        @interval = interval
      end

      # Probes the idle server for `seconds`, and on until it has `least`
      # probes (a mix such as /random must show its slow member: 20 draws miss
      # a quarter-share request 0.3% of the time), but never past `most_s`
      # once it has 3. At most 200 probes.
      def baseline(seconds: 0.5, least: 20, most_s: 5.0)
        wait_idle(Support::Clock.now + @limit)
        times = []
        started = Support::Clock.now
        more = lambda do
          elapsed = Support::Clock.now - started
          times.size < 3 || (elapsed < seconds) || (times.size < least && elapsed < most_s)
        end
        members = Settle.members(@workload)
        times << probe_us(members[times.size % members.size]) while times.size < 200 && more.call
        Scenarios::Settle.baseline_of(times.compact)
      end

      # The requests a baseline probes in turn: a mix's members, each as
      # often as its weight (so the unloaded p99 of a mix is its slow
      # member's, not its first path's: a mix of Redmine's pages read 43 ms
      # on `/` alone while /issues takes 140 ms); else the workload itself.
      def self.members(workload)
        return [workload] unless workload.mix?
        workload.mix.flat_map { |weight, member| [member] * [weight.to_f.round, 1].max }
      end

      def call(baseline)
        started = Support::Clock.now
        deadline = started + @limit
        loop do
          idle = wait_idle(deadline)
          took = idle && probe_us
          return outcome(true, started) if took && Scenarios::Settle.quick?(took, baseline)
          return outcome(false, started) if Support::Clock.now >= deadline
        end
      end

      # Waits, at most the bound, until the tree is idle: after a load, the
      # requests the engine left in flight are still being served (a Falcon
      # kept up served ~0.7 s of them into the next config's turn). -> idle?
      # Watched over QUIET_S, not the interval: an idle tree is seen in 50 ms
      # (a busy one burns 5 ticks of 10 ms), and every load waits it.
      def quiet = wait_idle(Support::Clock.now + @limit, interval: [@interval, QUIET_S].min)

      QUIET_S = 0.05

      private

      def outcome(settled, started) = Outcome.new(settled: settled, seconds: (Support::Clock.now - started).round(3)).freeze

      # True once the tree used under IDLE_CPU_PCT of a core over one interval.
      def wait_idle(deadline, interval: @interval)
        loop do
          before = ticks
          sleep interval
          return true if Scenarios::Settle.idle?(ticks - before, interval)
          return false if Support::Clock.now >= deadline
        end
      end

      def ticks = @ticks.call(@pids.call)

      def probe_us(request = @workload)
        t = Support::Clock.now
        @probe.request(request.method || "GET", request.path, body: request.body, headers: @headers)
        ((Support::Clock.now - t) * 1e6).round
      rescue Verify::HttpProbe::Failure
        nil
      end
    end
  end
end
