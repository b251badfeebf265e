# frozen_string_literal: true

require_relative "../support/clock"
require_relative "../verdicts/breakpoint"
require_relative "base"

module Arena
  module Scenarios
    # The method of the nginx comparison (seed 003): raise concurrency until
    # errors pass 1% or p99 passes the SLO; the answer is the last clean
    # concurrency and its throughput. Levels start low (1, 2, 4, ... below
    # the step, then the step and its multiples), so a server that breaks
    # early is seen breaking. Bounded by --max-connections and by --max-time
    # over all levels.
    class Breakpoint < Base
      scenario "breakpoint", "raise concurrency 1, 2, 4, ... then by --step until errors or p99 > SLO; last clean level"
      setting :step, flag: "--step N", type: Integer, default: 100, check: 1..10_000, help: "breakpoint: connections added per level after 1, 2, 4, ..."
      setting :max_connections, flag: "--max-connections N", type: Integer, default: 1000, check: 1..20_000, help: "breakpoint: highest level tried"

      def planned(load, _adapter) = self.class.levels(load).size

      def self.long? = true

      def self.bound = :max_time

      # Every level (it may break sooner); a level begun before the deadline runs to its end.
      def self.seconds(guess) = [levels(guess.load).size * guess.measurement_s, guess.load.unit_bound_s + guess.measurement_s].min

      def self.levels(load)
        low = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024].select { |c| c < load.step }
        (low + (load.step..load.max_connections).step(load.step).to_a).select { |c| c <= load.max_connections }
      end

      def call(ctx)
        deadline = Support::Clock.now + ctx.load.unit_bound_s
        slo_ms = ctx.slo_ms
        levels = []
        self.class.levels(ctx.load).each do |connections|
          break if Support::Clock.now >= deadline
          record = measure(ctx, ctx.settings(connections: connections), variant: "c=#{connections}")
          levels << record
          break if broken?(record, slo_ms)
        end
        [*levels, summary(ctx, levels, slo_ms)]
      end

      private

      def broken?(m, slo_ms) = !Verdicts::Breakpoint.level(m, slo_ms).broken_because.nil?

      def summary(ctx, levels, slo_ms)
        judged = levels.map { |m| Verdicts::Breakpoint.level(m, slo_ms) }
        verdict = Verdicts::Breakpoint.judge(judged, planned: self.class.levels(ctx.load).size)
        broke_at = judged.index(&:broken_because)
        clean = Verdicts::Breakpoint.last_clean(judged)
        summary_record(ctx, "summary", "step" => ctx.load.step, "slo_ms" => slo_ms,
          "last_clean_connections" => clean&.connections, "last_clean_rps" => clean&.rps,
          "broke_at_connections" => broke_at && judged[broke_at].connections, "broke_because" => broke_at && judged[broke_at].broken_because,
          "levels" => levels.size, "verdict" => verdict.word, "verdict_reason" => verdict.reason)
      end
    end
  end
end
