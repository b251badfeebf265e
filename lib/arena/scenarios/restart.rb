# frozen_string_literal: true

module Arena
  module Scenarios
    # Steady load; a third of the way in, the server's own zero-downtime
    # mechanism, once per mechanism it has. A server with none is reported
    # as `unsupported`, which is a finding.
    class Restart < Base
      scenario "restart", "zero-downtime restart a third into steady load, per mechanism"

      def disruptive? = true

      def planned(_load, adapter) = adapter.restart_mechanisms.size

      def call(ctx)
        mechanisms = ctx.adapter.restart_mechanisms
        return [unsupported(ctx)] if mechanisms.empty?
        mechanisms.map.with_index do |mechanism, i|
          ctx.restart_server if i.positive?
          one(ctx, mechanism)
        end
      end

      private

      def one(ctx, mechanism)
        settings = ctx.settings(duration: [ctx.load.duration, 6].max)
        at = settings.duration / 3.0
        record = measure(ctx, settings, variant: mechanism.to_s) do
          At.schedule((settings.warmup || 0) + at) do
            before = ctx.server.pids
            outcome = ctx.adapter.restart(ctx.server.group, mechanism)
            {"mechanism" => mechanism.to_s, "signalled" => outcome.to_s, "pids_before" => before}
          end
        end
        load = record["load"]
        after = ctx.server.pids
        extra = record["extra"].merge(EventAnalysis.call(load["timeline"] || [], at: at)).merge(
          "failed_requests" => load.dig("errors", "total"), "longest_us" => load.dig("latency_us", "max"),
          "pids_after" => after, "serving_after" => !after.empty?,
          "workers_replaced" => (record["extra"]["pids_before"] - after).size
        )
        record.merge("extra" => extra)
      end

      def unsupported(ctx)
        summary_record(ctx, "none", "unsupported" => "#{ctx.adapter.key} has no zero-downtime restart Arena can trigger")
      end
    end
  end
end
