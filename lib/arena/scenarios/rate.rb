# frozen_string_literal: true

require_relative "../verdicts/rate_plan"
require_relative "../verdicts/rate"

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

      def self.finding(m)
        return nil unless m.summary?
        x = m.extra
        "#{m.server} #{m.workload} rate: #{Verdicts::Rate.knee_words(x)}, with p99 <= #{x["slo_ms"]} ms#{slo_origin(x)} " \
          "(closed maximum #{Support::Format.rps(x["closed_max_rps"])} req/s)"
      end

      # A sweep's summaries over the rounds are one answer (Verdicts::KneeRounds).
      def self.round_key(m) = m.summary? ? [m.server, m.workload] : nil

      def self.rounds_finding(ms)
        return finding(ms.first) if ms.size == 1
        x = ms.first.extra
        maxima = ms.map { |m| m.extra["closed_max_rps"].to_f }.sort
        "#{ms.first.server} #{ms.first.workload} rate over #{ms.size} rounds: #{Verdicts::KneeRounds.call(ms.map(&:extra))}, with p99 <= " \
          "#{x["slo_ms"]} ms#{slo_origin(x)} (closed maximum #{Support::Format.rps(maxima.first)}-#{Support::Format.rps(maxima.last)} req/s)"
      end

      def self.slo_origin(x) = x["slo_relative"] ? " (3 x unloaded p99, at least 100 ms)" : ""

      # "knee 9.97k req/s at p99 ≤ 100 ms (closed max 9.06k req/s)".
      def self.brief(m)
        return nil unless m.summary?
        x = m.extra
        s = Support::Short
        word = x["verdict"] || (x["knee_rps"] ? "knee" : "none")
        ["rate", "#{knee_brief(word, x["knee_rps"])} at p99 ≤ #{s.sig(x["slo_ms"].to_f)} ms (closed max #{s.rate(x["closed_max_rps"])} req/s)"]
      end

      # "knee 10.1k req/s at p99 ≤ 100 ms (median of 3 rounds: 9.97k-10.2k)";
      # "unsettled: knee in 2, none in 1 of 3 rounds at p99 ≤ 100 ms".
      def self.rounds_brief(ms)
        return brief(ms.first) if ms.size == 1
        s = Support::Short
        xs = ms.map(&:extra)
        words = xs.map { |x| x["verdict"] || (x["knee_rps"] ? "knee" : "none") }
        knees = xs.zip(words).filter_map { |x, w| x["knee_rps"]&.to_f if w == "knee" }
        slo = "at p99 ≤ #{s.sig(xs.first["slo_ms"].to_f)} ms"
        said = if words.uniq == ["knee"]
          "knee #{s.rate(Stats.median(knees))} req/s #{slo} (median of #{ms.size} rounds: #{s.rate(knees.min)}-#{s.rate(knees.max)})"
        elsif words.uniq.size == 1
          "#{knee_brief(words.first, nil)} #{slo} in all #{ms.size} rounds"
        else
          "unsettled #{slo}: #{words.tally.sort_by { |w, c| [-c, w] }.map { |w, c| "#{w} in #{c}" }.join(", ")} of #{ms.size} rounds"
        end
        ["rate", said]
      end

      # A verdict's word with its knee, or what it means in a few words.
      def self.knee_brief(word, knee)
        return "knee #{Support::Short.rate(knee)} req/s" if word == "knee" && knee
        {"none" => "none: no level held", "stopped" => "stopped: time ran out, every level held"}.fetch(word, word)
      end

      # A p99 needs this many responses (Verdicts::Rate's rule).
      P99_SAMPLES = Verdicts::Rate::P99_SAMPLES

      def self.sections(document, colors:) = [RateChart.new(document, colors: colors).section].compact

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

    # The rate sweep's latency against offered rate, each knee marked.
    class RateChart
      def initialize(document, colors:)
        @curves = document.measurements.select { |m| m.scenario == "rate" && m.summary? && m.extra["curve"].is_a?(Array) }
        @colors = colors
      end

      def section
        return nil if @curves.empty?
        table = []
        charts = @curves.group_by(&:workload).map { |workload, group| chart(workload, group, table) }
        Report::Section.new(id: "rate", title: "Rate sweep (open model)", charts: charts,
          note: "Constant request rates from 10% to 120% of each server's closed maximum; p99 (of good responses) counts " \
                "from each request's intended start. The knee is the highest rate served with p99 within the SLO, " \
                "errors under 1%, under 1% dropped, and at least 100 samples.",
          headings: ["server", "workload", "target req/s", "good req/s", "p50", "p99", "n", "late", "dropped", "errors", ""], rows: table)
      end

      private

      def chart(workload, group, table)
        f = Support::Format
        marks = []
        series = group.map do |s|
          curve = s.extra["curve"]
          knee = curve.find { |c| c["target_rps"] == s.extra["knee_rps"] }
          if knee
            marks << {x: knee["target_rps"].to_f, y: knee["p99_us"], color: @colors.call(s.server),
                      label: "knee: #{s.server.split(":").first} #{f.rps(knee["target_rps"])} req/s"}
          end
          curve.each do |c|
            table << [s.server, workload, f.rps(c["target_rps"].to_f), f.rps((c["good_rps"] || c["achieved_rps"]).to_f),
              f.duration_us(c["p50_us"]), Report::Format.percentile_us(c["p99_us"], c["samples"], :p99), c["samples"] || "-",
              c["late"], c["dropped"], c["errors"], (c["target_rps"] == s.extra["knee_rps"]) ? "knee" : ""]
          end
          {name: s.server, color: @colors.call(s.server), points: curve.map { |c| [c["target_rps"].to_f, c["p99_us"]&.positive? ? c["p99_us"] : nil] }}
        end
        slo = group.first.extra["slo_ms"].to_f * 1000
        rates = series.flat_map { |l| l[:points].map(&:first) }.select(&:positive?)
        spread = rates.empty? ? 1 : rates.max / rates.min
        {title: "Rate sweep: #{workload}", svg: Report::Svg::Lines.new(title: "Rate sweep #{workload}", series: series, marks: marks,
          hlines: [{y: slo, label: "SLO: p99 ≤ #{Report::Svg.duration_tick(slo)}"}], log_x: spread > 20,
          x_label: "offered rate (requests per second, open model#{", log scale" if spread > 20})",
          y_label: "p99 latency (log scale)", x_format: ->(v) { Report::Svg.count_tick(v) },
          y_format: ->(v) { Report::Svg.duration_tick(v) }, log_y: true, y_zero: false).render}
      end
    end
  end
end
