# frozen_string_literal: true

require_relative "../plan/estimate"
require_relative "../support/clock"
require_relative "../verdicts/rate"
require_relative "../verdicts/rate_plan"
require_relative "base"

module Arena
  module Scenarios
    # Open model. First the closed-model maximum, then constant rates from 10%
    # to 120% of it. Latency is measured by the engine from each request's
    # intended start, so a stalled server cannot hide its queue. Each level
    # runs until it has at least MIN_REQUESTS requests (or --max-time is
    # spent), so its p99 rests on enough samples. The knee is the highest rate
    # sustained with p99 under the SLO.
    class Rate < Base
      scenario "rate", "open-model rate sweep 10%..120% of the closed maximum; latency curve and knee"

      FRACTIONS = Verdicts::RatePlan::FRACTIONS

      def planned(_load, _adapter) = FRACTIONS.size + 1

      def self.long? = true

      def self.bound = :max_time

      # The closed maximum, then the levels Verdicts::RatePlan plans (each with its
      # -w and a measurement's start), all within --max-time.
      def self.seconds(guess)
        load = guess.load
        closed = guess.measurement_s([load.duration, 5 * guess.latency_s].max)
        plan = Verdicts::RatePlan.call(closed_max_rps: guess.closed_max_rps, unloaded_s: guess.latency_s,
          budget_s: [load.unit_bound_s - closed, 0].max, base_duration_s: load.duration)
        sweep = plan.seconds + plan.levels.size * (load.warmup.to_f + Plan::Estimate::MEASURE_S)
        [closed + sweep, load.unit_bound_s + Verdicts::RatePlan.overhead_s(guess.latency_s)].min
      end

      # A sweep whose levels get fewer responses than a p99 needs ends in
      # "too few to judge": said before it starts, with the time that would do.
      def self.shortfall(guess)
        load = guess.load
        closed = guess.measurement_s([load.duration, 5 * guess.latency_s].max)
        max = guess.closed_max_rps
        plan = Verdicts::RatePlan.call(closed_max_rps: max, unloaded_s: guess.latency_s, budget_s: [load.unit_bound_s - closed, 0].max,
          base_duration_s: load.duration)
        return nil if plan.min_requests >= P99_SAMPLES
        least = Verdicts::RatePlan::FRACTIONS - Verdicts::RatePlan::DROP_ORDER
        needs = closed + Verdicts::RatePlan.seconds(least, max, P99_SAMPLES, Verdicts::RatePlan.overhead_s(guess.latency_s), load.duration) +
          least.size * (load.warmup.to_f + Plan::Estimate::MEASURE_S)
        "rate on #{guess.workload}: about #{plan.min_requests} requests a level, under the #{P99_SAMPLES} a p99 needs " \
          "(its verdict may be \"too few to judge\"; 50%, 100% and 120% with #{P99_SAMPLES} each take about #{needs.ceil} s a sweep)"
      end

      # --max-time bounds the whole sweep, the closed maximum included (the
      # unloaded baseline, shared by every scenario, comes before it). The
      # levels are planned (Verdicts::RatePlan) from the closed maximum, the unloaded
      # latency and the time left; a level that cannot finish before the
      # deadline is not started, and the summary says what was measured.
      def call(ctx)
        unloaded_s = ctx.baseline&.p99_us.to_f / 1e6
        started = Support::Clock.now
        deadline = started + ctx.load.unit_bound_s
        # Long enough for a few responses per connection however slow the
        # workload is: a 1 s /sleep at -d 1 would otherwise measure nothing.
        closed = measure(ctx, ctx.settings(duration: [ctx.load.duration, 5 * unloaded_s].max), variant: "closed-max")
        max = closed.good_rps
        return [closed] if max <= 0
        plan = Verdicts::RatePlan.call(closed_max_rps: max, unloaded_s: unloaded_s, budget_s: deadline - Support::Clock.now,
          base_duration_s: ctx.load.duration)
        points = []
        plan.levels.each do |level|
          # Twice the estimated overhead is kept back: on a busy machine the
          # settle and the drain of a 1 s endpoint took longer than planned
          # (a 300 s sweep ended at 307 s with one overhead kept back).
          left = deadline - Support::Clock.now - 2 * Verdicts::RatePlan.overhead_s(unloaded_s)
          break if left < [ctx.load.duration, 1.0].min
          points << rate_level(ctx, level, max, duration: [level.duration_s, left.floor.to_f].min.clamp(1.0, nil))
        end
        [closed, *points, summary(ctx, max, points, plan, sweep_s: Support::Clock.now - started)]
      end

      # A sweep's summaries over the rounds are one answer (Verdicts::KneeRounds).
      def self.round_key(m) = m.summary? ? [m.server, m.workload] : nil

      # A p99 needs this many responses (Verdicts::Rate's rule).
      P99_SAMPLES = Verdicts::Rate::P99_SAMPLES

      private

      def rate_level(ctx, level, max, duration:)
        settings = ctx.settings(rate: level.rate, connections: [ctx.load.connections * 4, 64].max, duration: duration)
        measure(ctx, settings, variant: level.label).then do |m|
          m.with(extra: {"fraction" => level.fraction, "target_rps" => level.rate, "closed_max_rps" => max.round(1)})
        end
      end

      def summary(ctx, max, points, plan, sweep_s:)
        slo_us = ctx.slo_ms * 1000
        curve = points.map do |p|
          {"target_rps" => p.extra["target_rps"], "fraction" => p.extra["fraction"], "achieved_rps" => p.load.rps, "good_rps" => p.good_rps,
           "p50_us" => p.load.latency.p50, "p99_us" => p.load.latency.p99, "p999_us" => p.load.latency.p999,
           "samples" => p.load.latency.n, "late" => p.load.late, "dropped" => p.load.dropped,
           "errors" => p.load.errors, "error_pct" => p.load.error_pct, "duration_s" => p.load.duration_s,
           **p.load.good_histogram&.then { |h| {"over_slo" => h.count_over(slo_us)} }.to_h}
        end
        verdict, knee = Verdicts::Rate.knee(curve, slo_us: slo_us, planned: plan.levels.size)
        summary_record(ctx, "curve", "curve" => curve, "slo_ms" => ctx.slo_ms, "slo_relative" => ctx.load.slo_ms.nil?,
          "closed_max_rps" => max.round(1), "knee_rps" => knee, "verdict" => verdict.word, "verdict_reason" => verdict.reason,
          "levels" => plan.levels.size, "planned_levels" => plan.levels.map(&:label), "measured_levels" => points.map(&:variant),
          "dropped_levels" => plan.dropped.map { |f| "#{(f * 100).round}%" }, "min_requests" => plan.min_requests,
          "sweep_s" => sweep_s.round(1))
      end
    end
  end
end
