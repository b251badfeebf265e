# frozen_string_literal: true

module Arena
  module Scenarios
    # Normal steady load twice: alone, then beside N slow connections (default
    # 2 x workers). One-request-per-worker servers starve without a buffering
    # proxy; threaded and evented ones should barely notice.
    class SlowClientsScenario < Base
      scenario "slow-clients", "steady load with and without N slow connections (headers, upload or read)"

      def planned(_load, _adapter) = 2

      def call(ctx)
        count = ctx.load.slow_clients || 2 * ctx.adapter.workers
        alone = measure(ctx, ctx.settings, variant: "alone")
        slow = SlowClients.new(bind: ctx.entry, count: count, mode: ctx.load.slow_mode,
          duration: (ctx.load.warmup || 0) + ctx.load.duration + 5)
        beside = measure(ctx, ctx.settings, variant: "with #{count} slow #{ctx.load.slow_mode}") do
          slow.start
          nil
        end
        held = slow.stop
        [alone, beside.merge("extra" => held.merge(compare(alone, beside)))]
      end

      private

      def compare(alone, beside)
        a = alone["load"]
        b = beside["load"]
        {"rps_alone" => a["throughput_rps"], "p99_us_alone" => a.dig("latency_us", "p99"),
         "rps_ratio" => a["throughput_rps"].to_f.positive? ? (b["throughput_rps"].to_f / a["throughput_rps"]).round(3) : nil}
      end
    end
  end
end
