# frozen_string_literal: true

require_relative "../stats/tail_count"
require_relative "../support/format"
require_relative "limits"
require_relative "verdict"

module Arena
  module Verdicts
    # What a rate sweep's levels mean: each level sustained or not (p99 of
    # enough responses within the SLO, errors and drops under their limits),
    # and the sweep's knee: the highest rate of the unbroken run of sustained
    # levels, or why there is none. Scenarios::Rate measures the levels (its
    # curve rows) and records what this says.
    module Rate
      extend self

      # A rate counts as served only if the server kept up with it: p99 (of
      # enough good responses) under the SLO, errors under the limit, and at
      # most 1% of the scheduled requests dropped or missing.
      # The requests still in flight when a level ends (Little's law: rate x
      # latency) are not a shortfall: a 1 s endpoint at 0.995 req/s for 44 s
      # answered 43 of 43.8 and read "missed" on goodput alone.
      def sustained?(point, slo_us)
        target = point["target_rps"].to_f
        duration = point["duration_s"].to_f
        in_flight = duration.positive? ? target * point["p50_us"].to_f / 1e6 / duration : 0.0
        point["good_rps"].to_f + in_flight >= 0.99 * target && point["dropped"].to_i <= 0.01 * target * duration &&
          point["error_pct"].to_f <= Limits::ERROR_LIMIT_PCT && point["samples"].to_i >= P99_SAMPLES &&
          point["p99_us"].to_i.positive? && tail_within?(point, slo_us)
      end

      # The p99 within the SLO: where the row counts its responses over the
      # SLO ("over_slo", from the latency histogram), no more of them than a
      # server whose p99 sits at the SLO shows by chance
      # (Stats::TailCount; a thin level's "tail_n" is the count it had);
      # else the p99 itself at or under it.
      def tail_within?(point, slo_us)
        over = point["over_slo"]
        return point["p99_us"].to_i <= slo_us if over.nil?
        over.to_i <= Stats::TailCount.allowed(point.fetch("tail_n", point["samples"]).to_i)
      end

      # "incomplete: measured 50% and 90% of 4 planned levels", or nil.
      def incomplete(x)
        planned = x["planned_levels"]
        measured = x["measured_levels"]
        return nil unless planned && measured && measured.size < planned.size
        said = measured.empty? ? "none" : Support::Format.and_list(measured)
        "incomplete: measured #{said} of #{planned.size} planned levels"
      end

      # A level that kept up in every way but one: it had fewer responses
      # than a p99 needs (P99_SAMPLES), and those it had were within the SLO
      # (no more over it than chance allows of that many, or, uncounted, its
      # largest within). Too little time, not
      # too little capacity: not a miss.
      def thin?(point, slo_us)
        return false if point["samples"].to_i >= P99_SAMPLES
        p99 = point["p99_us"].to_i
        sustained?(point.merge("samples" => P99_SAMPLES, "tail_n" => point["samples"].to_i, "p99_us" => p99.positive? ? p99 : 1), slo_us)
      end

      P99_SAMPLES = 100
      # Below this share of the closed maximum a level is "well below" it: a
      # sweep with no level under it cannot say a server sustains nothing.
      NEAR_MAX = 0.9

      # The knee: the highest rate of the unbroken run of sustained levels
      # from the lowest up (curve in ascending target order). A level that
      # passes above one that missed is chance, not capacity: the knee stops
      # at the first miss. A sweep cut short by --max-time before any level
      # missed has not found its knee: it says so and how far it got. No
      # answer comes from levels never measured: when the lowest measured
      # level is at 90% of the maximum or more and missed, the words say so
      # rather than "none" (issue 35); a level with too few responses for a
      # p99 is not a miss either (thin?). Returns [Verdict, knee_rps or nil].
      def knee(curve, slo_us:, planned:)
        levels = curve.sort_by { |c| c["target_rps"].to_f }
        held = levels.take_while { |c| sustained?(c, slo_us) }
        missed = levels[held.size]
        f = Support::Format
        cut = (levels.size < planned) ? "stopped: time ran out after #{levels.size} of #{planned} levels" : nil
        if levels.empty?
          [Verdict.cannot_judge(cut ? "time ran out before the first level" : "no level measured"), nil]
        elsif missed && thin?(missed, slo_us)
          thin(held, missed)
        elsif held.empty? && missed["fraction"] && missed["fraction"].to_f >= NEAR_MAX
          [Verdict.cannot_judge("not measured below #{(NEAR_MAX * 100).round}% of the closed maximum (the lowest level, " \
            "#{f.rps(missed["target_rps"].to_f)} req/s, missed); a level well below it was not run"), nil]
        elsif missed.nil? && cut
          [Verdict.of("stopped", "time ran out after #{levels.size} of #{planned} levels; every level measured held, up to " \
            "#{f.rps(held.last["target_rps"].to_f)} req/s: the knee is at or above it"), nil]
        elsif held.empty?
          [Verdict.of("none", "no rate sustained with p99 within the SLO (the lowest, #{f.rps(missed["target_rps"].to_f)} req/s, missed)"), nil]
        else
          top = held.last["target_rps"]
          above = missed ? "#{f.rps(missed["target_rps"].to_f)} req/s missed" : "the highest level measured"
          [Verdict.of("knee", "#{f.rps(top.to_f)} req/s (#{above}#{"; #{cut}" if cut})"), top]
        end
      end

      # The first level not sustained had too few responses to judge: the
      # knee is at or above the last held one, or not known at all.
      def thin(held, level)
        f = Support::Format
        rate = "#{f.rps(level["target_rps"].to_f)} req/s"
        n = level["samples"].to_i
        if held.empty?
          return [Verdict.cannot_judge("the lowest level, #{rate}, answered in time but with #{n} responses, fewer than the " \
            "#{P99_SAMPLES} a p99 needs (give more time)"), nil]
        end
        top = held.last["target_rps"]
        [Verdict.of("knee", "#{f.rps(top.to_f)} req/s (#{rate} had #{n} responses, too few to judge: the knee is at or above " \
          "#{f.rps(top.to_f)} req/s)"), top]
      end

      # Summary finding words (older results files stored no verdict).
      def knee_words(x)
        return "#{x["verdict"]}: #{x["verdict_reason"]}" if x["verdict"]
        knee = x["knee_rps"] ? "#{Support::Format.rps(x["knee_rps"])} req/s" : "none (no rate sustained with p99 within the SLO)"
        cut = incomplete(x)
        knee = "or above #{knee}" if cut && x["knee_rps"]
        "#{"#{cut}; " if cut}knee at #{knee}"
      end
    end
  end
end
