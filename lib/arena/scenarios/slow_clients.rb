# frozen_string_literal: true

require_relative "../load/slow_clients"
require_relative "base"

module Arena
  module Scenarios
    # Normal steady load twice: alone, then beside N slow connections (default
    # 2 x workers). One-request-per-worker servers starve without a buffering
    # proxy; threaded and evented ones should barely notice.
    class SlowClientsScenario < Base
      scenario "slow-clients", "steady load with and without N slow connections (headers, upload or read)"
      setting :slow_clients, flag: "--slow-clients N", type: Integer, check: 1..10_000, help: "slow-clients: how many (default 2 x workers)"
      setting :slow_mode, flag: "--slow-mode MODE", type: Load::SlowClients::MODES, default: "headers", help: "slow-clients: headers, upload or read"
      figures :count, :mode, :bytes_trickled, :rps_alone, :p99_us_alone, :rps_ratio

      def planned(_load, _adapter) = 2

      def self.seconds(guess) = guess.measurement_s + guess.measurement_s(guess.load.warmup.to_f + guess.load.duration + 5)

      def call(ctx)
        count = ctx.load.slow_clients || 2 * ctx.adapter.workers
        alone = measure(ctx, ctx.settings, variant: "alone")
        slow = Load::SlowClients.new(bind: ctx.entry, count: count, mode: ctx.load.slow_mode,
          duration: (ctx.load.warmup || 0) + ctx.load.duration + 5)
        beside = measure(ctx, ctx.settings, variant: "with #{count} slow #{ctx.load.slow_mode}") do
          slow.start
          nil
        end
        held = slow.stop
        [alone, beside.with(extra: held.merge(compare(alone, beside)))]
      end

      private

      def compare(alone, beside)
        a = alone.good_rps
        {"rps_alone" => a, "p99_us_alone" => alone.load.latency.p99,
         "rps_ratio" => a.positive? ? (beside.good_rps / a).round(3) : nil}
      end
    end
  end
end
