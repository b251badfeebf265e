# frozen_string_literal: true

require_relative "verdict"

module Arena
  module Verdicts
    # Reads an engine timeline around one event (a kill, a restart) at second
    # `at` of the counted phase: good throughput before, the dip after, how
    # long until it is back to `recovered` of before, and the errors after.
    # Slices may be finer than a second (crash and restart ask for 100 ms), so
    # rates are per second whatever the slice.
    #
    # Recovery is judged on windows, not single slices: at 16 req/s a 100 ms
    # slice holds 1.6 answers on average, and bursty or Poisson arrivals leave
    # many slices under 90% with nothing wrong. A window is HOLD_S long, or
    # longer until it expects MIN_EXPECTED answers at the baseline rate; it is
    # back when its count is not below `recovered` of the baseline's by more
    # than Z standard deviations of a window's count (the larger of Poisson's
    # and the spread of the windows before the event). A window that merely
    # straddles the event, with answers from before it, is never the one read.
    # Words: "no lasting effect" (the first window after the event is back),
    # "recovered" (a later one), "not recovered", or "cannot judge" (no
    # baseline, or too little after the event for one window).
    module EventAnalysis
      TIMELINE_MS = 100
      HOLD_S = 0.5
      MIN_EXPECTED = 30
      Z = 2.33
      # What `call` adds to a crash or restart measurement's figures.
      FIGURES = %i[event_at_s resolution_s baseline_rps dip_rps dip_pct recovery_s recovered verdict verdict_reason
        errors_after_event error].freeze

      # extend self, not module_function: Name.call then runs the methods mutant mutates
      extend self

      # Back to this share of the goodput before the event is recovered.
      RECOVERED = 0.9

      def call(load, at:, recovered: RECOVERED)
        step = load.interval_s
        rate = ->(p) { p.good / step }
        before = load.timeline.select { |p| p.t + step <= at }
        after = load.timeline.select { |p| p.t + step > at }
        baseline = (before.sum(&rate) / before.size unless before.empty?)
        dip = after.map(&rate).min
        verdict, back = judge(before.map(&:good), after.reject { |p| p.t <= at }, step: step, at: at, recovered: recovered)
        {
          "event_at_s" => at.round(2),
          "resolution_s" => step,
          "baseline_rps" => baseline&.round(1),
          "dip_rps" => dip&.round(1),
          "dip_pct" => ((100.0 * (1 - dip / baseline)).round(1) if dip && baseline&.positive?),
          "recovery_s" => back && (back.t + step - at).round(2),
          "recovered" => !back.nil?,
          "verdict" => verdict.word, "verdict_reason" => verdict.reason,
          "errors_after_event" => after.sum(&:errors)
        }
      end

      # The verdict in words (older results files stored only `recovered`).
      def words(x)
        return "#{x["verdict"]}: #{x["verdict_reason"]}" if x["verdict"]
        x["recovered"] ? "back to 90% throughput in #{x["recovery_s"]}s" : "throughput not back to 90%"
      end

      # before: good counts of the slices before the event; after: the slices
      # that start after it. Returns [Verdict, the first slice of the window
      # that is back (or nil)].
      def judge(before, after, step:, at:, recovered:)
        return [Verdicts::Verdict.cannot_judge("no slice before the event to compare with"), nil] if before.empty?
        per_slice = before.sum.fdiv(before.size)
        return [Verdicts::Verdict.cannot_judge("nothing was served before the event"), nil] unless per_slice.positive?
        width = window(per_slice, step)
        return [Verdicts::Verdict.cannot_judge("#{after.size} slices after the event, a window needs #{width}"), nil] if after.size < width
        expected = per_slice * width
        floor = recovered * expected - Z * spread(before, expected)
        first = (0..after.size - width).find { |i| after[i, width].sum(&:good) >= floor }
        pct = "#{(100 * recovered).round}%"
        verdict = if first.nil?
          Verdicts::Verdict.of("not recovered", "throughput not back to #{pct} within the #{(after.size * step).round(1)} s measured after")
        elsif first.zero?
          Verdicts::Verdict.of("no lasting effect", "throughput at #{pct} or more of before from the first #{(width * step).round(2)} s after")
        else
          Verdicts::Verdict.of("recovered", "back to #{pct} throughput in #{(after[first].t + step - at).round(2)} s")
        end
        [verdict, first && after[first]]
      end

      # Slices per window: HOLD_S at least, more until MIN_EXPECTED answers are
      # due (one at least: per_slice is positive, so the second term is 1 or more).
      def window(per_slice, step) = [(HOLD_S / step).round, (MIN_EXPECTED / per_slice).ceil].max

      # The standard deviation of a window's count: Poisson's, widened by the
      # before-slices' dispersion (variance over mean) when they vary more
      # than Poisson (bursty traffic).
      def spread(before, expected)
        mean = before.sum.fdiv(before.size)
        variance = (before.size > 1) ? before.sum { |x| (x - mean)**2 } / (before.size - 1) : 0.0
        Math.sqrt([variance / mean, 1.0].max * expected)
      end
    end
  end
end
