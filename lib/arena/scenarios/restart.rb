# frozen_string_literal: true

require_relative "../verdicts/event_analysis"
require_relative "at"
require_relative "base"

module Arena
  module Scenarios
    # Steady load; a third of the way in, the server's own zero-downtime
    # mechanism, once per mechanism it has. A server with none is reported
    # as `unsupported`, which is a finding. Timelines at 100 ms, as for crash.
    class Restart < Base
      scenario "restart", "zero-downtime restart a third into steady load, per mechanism"
      figures :mechanism, :signalled, :pids_before, :pids_after, :failed_requests, :longest_us, :serving_after,
        :workers_replaced, :unsupported, *Verdicts::EventAnalysis::FIGURES

      def disruptive? = true

      def planned(_load, adapter) = adapter.restart_mechanisms.size

      def self.seconds(guess) = new.planned(guess.load, guess.adapter) * (guess.measurement_s([guess.load.duration, 6].max) + guess.boot_s)

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
        settings = ctx.settings(duration: [ctx.load.duration, 6].max, timeline_ms: Verdicts::EventAnalysis::TIMELINE_MS)
        at = settings.duration / 3.0
        record = measure(ctx, settings, variant: mechanism.to_s) do
          At.schedule((settings.warmup || 0) + at) do
            before = ctx.server.pids
            outcome = ctx.server.restart(mechanism)
            {"mechanism" => mechanism.to_s, "signalled" => outcome.to_s, "pids_before" => before}
          end
        end
        after = ctx.server.pids
        before = Array(record.extra["pids_before"])
        record.with(extra: record.extra.merge(Verdicts::EventAnalysis.call(record.load, at: at)).merge(
          "failed_requests" => record.load.errors, "longest_us" => record.load.latency_all.max,
          "pids_after" => after, "serving_after" => !after.empty?, "workers_replaced" => (before - after).size
        ))
      end

      def unsupported(ctx)
        summary_record(ctx, "none", "unsupported" => "#{ctx.adapter.key} has no zero-downtime restart Arena can trigger")
      end
    end
  end
end
