# frozen_string_literal: true

require_relative "../support/clock"
require_relative "../verdicts/rate"
require_relative "base"

module Arena
  module Scenarios
    # The highest open-model rate a config sustains, found by bisection
    # rather than swept: the closed-model maximum first, then constant rates
    # as fractions of it, 90% first, then 100% (if 90% held) or halving (if
    # it did not), then the midpoint of the highest held and lowest missed
    # fraction, until they are RESOLUTION apart or STEPS are spent. A rate
    # is held by the rate scenario's rule (Verdicts::Rate.sustained?): p99 within the
    # SLO (no more responses over it than chance gives a server whose p99 is
    # at it: Stats::TailCount), under 1% errors and dropped, at least 100 samples. `arena tune`
    # measures each candidate with this scenario; its section draws every
    # config's sustained rate against its memory.
    class Sustained < Base
      scenario "sustained", "closed maximum, then a bisection of open-model rates for the highest sustained within the SLO"

      FIRST = 0.9
      RESOLUTION = 0.05
      STEPS = 5
      LOWEST = 0.05
      # Enough for a p99 (100 samples) with room for a few dropped or late.
      MIN_REQUESTS = 120

      # steps: the open levels at most (`arena tune`'s first look takes
      # fewer: its duels, not the bisection, rank the configs).
      def initialize(steps: STEPS)
        @steps = steps
      end

      def planned(_load, _adapter) = @steps + 1

      def self.long? = true

      def self.bound = :max_time

      # The closed maximum (warmed up), then STEPS open levels of at least
      # MIN_REQUESTS each, within --max-time.
      def self.seconds(guess)
        load = guess.load
        closed = guess.measurement_s + load.warmup_limit
        level = guess.measurement_s([load.duration, MIN_REQUESTS / (FIRST * guess.closed_max_rps)].max)
        closed + [STEPS * level, load.unit_bound_s].min
      end

      def call(ctx)
        closed = measure(ctx, ctx.settings, variant: "closed-max", warm: true)
        max = closed.good_rps
        return [closed, summary(ctx, closed, [])] if max <= 0
        slo_us = (ctx.slo_ms * 1000).round
        points = []
        held = missed = nil
        fraction = FIRST
        # --max-time bounds all the open steps, as in the rate scenario.
        deadline = Support::Clock.now + ctx.load.unit_bound_s
        @steps.times do
          left = deadline - Support::Clock.now
          break if left <= 1
          point = open_level(ctx, max, fraction, min_requests: MIN_REQUESTS, seconds_left: left.floor)
          # A level the time cut short of a p99's responses, within the SLO
          # in all it had, is too little time, not too little capacity
          # (Verdicts::Rate.thin?): held, and the bisection ends there.
          row = self.class.row(point, slo_us)
          thin = Verdicts::Rate.thin?(row, slo_us)
          ok = thin || Verdicts::Rate.sustained?(row, slo_us)
          points << point.with(extra: point.extra.merge("sustained" => ok, **(thin ? {"thin" => true} : {})))
          ok ? held = fraction : missed = fraction
          fraction = (self.class.next_fraction(held, missed) unless thin) or break
        end
        [closed, *points, summary(ctx, closed, points)]
      end

      # What the closed maximum says beside the rate held: its goodput,
      # memory, mean latency, connections (the settings it ran with) and CPU.
      def self.closed_figures(closed)
        {"closed_max_rps" => closed.good_rps.round(1), "closed_pss_mib" => mib(closed.probes&.pss_peak_kb),
         "closed_mean_ms" => closed.load&.latency&.mean&.then { |us| (us / 1000.0).round(3) },
         "closed_connections" => closed.settings&.connections, "closed_cpu_pct" => closed.probes&.cpu_pct&.round(1)}
      end

      def self.mib(kb) = kb&.positive? ? (kb / 1024.0).round(1) : nil

      # The figures Verdicts::Rate.sustained? judges, from an open-model
      # measurement; with the SLO, how many good responses were over it
      # (where the engine wrote their histogram).
      def self.row(m, slo_us = nil)
        over = slo_us && m.load.good_histogram&.count_over(slo_us)
        {"target_rps" => m.extra["target_rps"], "good_rps" => m.good_rps, "dropped" => m.load.dropped,
         "duration_s" => m.load.duration_s, "error_pct" => m.load.error_pct, "samples" => m.load.latency.n,
         "p99_us" => m.load.latency.p99, **(over ? {"over_slo" => over} : {})}
      end

      figures :settings, :slo_ms, :slo_relative, :closed_max_rps, :closed_pss_mib, :closed_mean_ms, :closed_connections,
        :closed_cpu_pct, :sustained_rps, :fraction, :resolution, :p99_ms, :mean_ms, :error_pct, :pss_mib, :unloaded_ms,
        :service_ms, :steps

      # The bisection's next fraction of the closed maximum, or nil to stop:
      # 100% after 90% held, half the lowest miss while nothing held (down to
      # LOWEST), then the midpoint until held and missed are RESOLUTION apart.
      def self.next_fraction(held, missed)
        return nil if held && held >= 1
        return 1.0 if missed.nil?
        if held.nil?
          lower = missed / 2
          return (lower < LOWEST) ? nil : lower
        end
        (missed - held <= RESOLUTION) ? nil : ((held + missed) / 2).round(4)
      end

      private

      # The config's answer: the highest rate held, its p99 and the peak PSS
      # of the tree under it (the closed maximum's when none held).
      def summary(ctx, closed, points)
        best = points.select { |p| p.extra["sustained"] }.max_by { |p| p.extra["fraction"] }
        missed = points.reject { |p| p.extra["sustained"] }.map { |p| p.extra["fraction"] }.min
        under = best || closed
        baseline = ctx.baseline
        summary_record(ctx, "rate", {
          "settings" => ctx.adapter.settings, "slo_ms" => ctx.slo_ms, "slo_relative" => ctx.load.slo_ms.nil?,
          **self.class.closed_figures(closed),
          "sustained_rps" => best ? best.extra["target_rps"] : 0, "fraction" => best&.extra&.fetch("fraction"),
          "resolution" => ((missed || 1.0) - (best&.extra&.fetch("fraction") || 0.0)).round(4),
          "p99_ms" => best&.load&.latency&.p99&.then { |us| (us / 1000.0).round(3) },
          "mean_ms" => best&.load&.latency&.mean&.then { |us| (us / 1000.0).round(3) },
          "error_pct" => under.load&.error_pct, "pss_mib" => self.class.mib(under.probes&.pss_peak_kb),
          "unloaded_ms" => baseline&.p50_us&.then { |us| (us / 1000.0).round(3) }, "service_ms" => service_ms(points, baseline),
          "waiting_p50_ms" => best&.queue&.queue_p50_us&.then { |us| (us / 1000.0).round(3) },
          "working_p50_ms" => best&.queue&.work_p50_us&.then { |us| (us / 1000.0).round(3) },
          "steps" => points.map { |p| {"fraction" => p.extra["fraction"], "target_rps" => p.extra["target_rps"], "good_rps" => p.good_rps, "p99_us" => p.load.latency.p99, "sustained" => p.extra["sustained"]} }
        })
      end

      # How long a request holds a slot: measured inside the app where Arena's
      # timing wrapper ran (--queue-time on: the median time working, at the
      # highest rate held, so queueing is not counted as service); else the
      # mean latency at a rate held at half the closed maximum or less (a
      # mix's unloaded p50 would be one of its members), else the unloaded p50.
      def service_ms(points, baseline)
        measured = points.select { |p| p.extra["sustained"] && p.queue&.work_p50_us }.max_by { |p| p.extra["fraction"] }
        return (measured.queue.work_p50_us / 1000.0).round(3) if measured
        light = points.select { |p| p.extra["sustained"] && p.extra["fraction"] <= 0.5 }.min_by { |p| p.extra["fraction"] }
        us = light&.load&.latency&.mean || baseline&.p50_us
        us && (us / 1000.0).round(3)
      end
    end
  end
end
