# frozen_string_literal: true

module Arena
  module Scenarios
    # Open model. First the closed-model maximum, then constant rates from 10%
    # to 120% of it. Latency is measured by the engine from each request's
    # intended start, so a stalled server cannot hide its queue. The knee is
    # the highest rate whose p99 stays under the SLO.
    class Rate < Base
      scenario "rate", "open-model rate sweep 10%..120% of the closed maximum; latency curve and knee"

      FRACTIONS = [0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.2].freeze

      def planned(_load, _adapter) = FRACTIONS.size + 1

      def call(ctx)
        closed = measure(ctx, ctx.settings, variant: "closed-max")
        max = closed.dig("load", "throughput_rps").to_f
        return [closed] if max <= 0
        points = FRACTIONS.map do |fraction|
          rate = [(max * fraction).round, 1].max
          # The open model needs spare connections: a late request must find
          # one free, or it is counted as dropped.
          settings = ctx.settings(rate: rate, connections: [ctx.load.connections * 4, 64].max)
          record = measure(ctx, settings, variant: "#{(fraction * 100).round}%")
          record.merge("extra" => {"fraction" => fraction, "target_rps" => rate, "closed_max_rps" => max.round(1)})
        end
        [closed, *points, summary(ctx, max, points)]
      end

      private

      # A rate counts as served only if the server kept up with it: p99 under
      # the SLO, no errors, and at most 1% of the scheduled requests dropped
      # or missing. A server that answered nothing has no p99 to speak of.
      def sustained?(point, slo_us)
        target = point["target_rps"].to_f
        point["achieved_rps"].to_f >= 0.99 * target && point["dropped"].to_i <= 0.01 * target * point["duration_s"].to_f &&
          point["errors"].to_i.zero? && point["p99_us"].to_i.between?(1, slo_us)
      end

      def summary(ctx, max, points)
        slo_us = ctx.load.slo_ms * 1000
        curve = points.map do |p|
          lat = p.dig("load", "latency_us")
          {"target_rps" => p.dig("extra", "target_rps"), "achieved_rps" => p.dig("load", "throughput_rps"),
           "p50_us" => lat["p50"], "p99_us" => lat["p99"], "p999_us" => lat["p999"],
           "late" => p.dig("load", "open", "late"), "dropped" => p.dig("load", "open", "dropped"),
           "errors" => p.dig("load", "errors", "total"), "duration_s" => p.dig("load", "duration_s")}
        end
        knee = curve.select { |c| sustained?(c, slo_us) }.max_by { |c| c["target_rps"] }
        summary_record(ctx, "curve", "curve" => curve, "slo_ms" => ctx.load.slo_ms, "closed_max_rps" => max.round(1),
          "knee_rps" => knee&.fetch("target_rps"))
      end
    end
  end
end
