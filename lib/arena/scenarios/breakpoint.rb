# frozen_string_literal: true

module Arena
  module Scenarios
    # The method of the nginx comparison (seed 003): raise concurrency by a
    # step until errors appear or p99 passes the SLO; the answer is the last
    # clean concurrency and its throughput. Bounded by --max-connections and
    # by --max-time over all steps.
    class Breakpoint < Base
      scenario "breakpoint", "raise concurrency by --step until errors or p99 > SLO; last clean level"

      def planned(load, _adapter) = [load.max_connections / load.step, 1].max

      def call(ctx)
        step = ctx.load.step
        deadline = Clock.now + ctx.load.max_time
        levels = []
        connections = step
        while connections <= ctx.load.max_connections && Clock.now < deadline
          record = measure(ctx, ctx.settings(connections: connections), variant: "c=#{connections}")
          levels << record
          break if broken?(record, ctx.load.slo_ms)
          connections += step
        end
        [*levels, summary(ctx, levels)]
      end

      private

      def broken?(record, slo_ms)
        record.dig("load", "errors", "total").to_i.positive? || record.dig("load", "latency_us", "p99").to_f > slo_ms * 1000
      end

      def summary(ctx, levels)
        clean = levels.reject { |r| broken?(r, ctx.load.slo_ms) }.last
        broke = levels.find { |r| broken?(r, ctx.load.slo_ms) }
        summary_record(ctx, "summary", "step" => ctx.load.step, "slo_ms" => ctx.load.slo_ms,
          "last_clean_connections" => clean && clean.dig("engine_argv").then { |a| a[a.index("-c") + 1].to_i },
          "last_clean_rps" => clean&.dig("load", "throughput_rps"),
          "broke_at_connections" => broke && broke.dig("engine_argv").then { |a| a[a.index("-c") + 1].to_i },
          "broke_because" => broke && reason(broke, ctx.load.slo_ms),
          "levels" => levels.size)
      end

      def reason(record, slo_ms)
        errors = record.dig("load", "errors")
        return "#{errors["total"]} errors (#{errors.reject { |k, v| k == "total" || v.to_i.zero? }.keys.join(", ")})" if errors["total"].to_i.positive?
        "p99 #{(record.dig("load", "latency_us", "p99") / 1000.0).round(1)} ms > SLO #{slo_ms} ms"
      end
    end
  end
end
