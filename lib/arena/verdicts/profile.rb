# frozen_string_literal: true

require_relative "event_analysis"
require_relative "spike"

module Arena
  module Verdicts
    # What a load profile's run means: each stage's figures (by intended
    # time), the stage boundaries, and after each spike its Verdicts::Spike
    # verdict and its recovery, read as a crash's is (EventAnalysis: the
    # goodput of the stage after against the stage before) with the time
    # until the p99 per slice is back under twice what it was before.
    # Scenarios::Profile runs the stages and records what this says.
    module Profile
      extend self

      # The stages' figures, their boundaries (for the chart) and the
      # recovery after each spike. Pure: a profile and a load in, a hash out.
      def analyse(profile, load)
        figures = load.stages || []
        stages = profile.stages.each_with_index.map do |stage, i|
          f = figures[i]
          {"kind" => stage.kind, "label" => stage.label, "start_s" => profile.starts[i], "seconds" => stage.seconds,
           "asked_rps" => stage.asked / stage.seconds, "sent_rps" => f&.sent_rps&.round(1), "good_rps" => f&.good_rps&.round(1),
           "p50_us" => f&.latency&.at(:p50), "p90_us" => f&.latency&.at(:p90), "p99_us" => f&.latency&.at(:p99), "errors" => f&.errors, "dropped" => f&.dropped}
        end
        marks = profile.starts.drop(1).zip(profile.stages.drop(1)).map { |t, s| {"x" => t, "label" => s.kind} }
        recoveries = profile.stages.each_index.select { |i| profile.stages[i].kind == "spike" && i.positive? && i + 1 < profile.stages.size }
          .map { |i| recovery(profile, load, i) }
        {"profile" => profile.spec, "stages" => stages, "marks" => marks, "recoveries" => recoveries}
      end

      # The spike cut out of the timeline: the stage before it, then the stage
      # after it moved back onto the spike's start, so EventAnalysis reads
      # "after" against "before" exactly as it reads a kill. A start falls on
      # a slice's edge, where float noise (0.1 + 0.2 s, or a slice 0.2 + 0.1)
      # would put the last slice before it after it: it is read a nanosecond on.
      def recovery(profile, load, i)
        step = load.interval_s
        start = profile.starts[i]
        finish = start + profile.stages[i].seconds
        before_from = profile.starts[i - 1]
        after_to = finish + profile.stages[i + 1].seconds
        before = load.timeline.select { |p| p.t >= before_from && p.t + step <= start + 1e-9 }
        after = load.timeline.select { |p| p.t >= finish - 1e-9 && p.t < after_to - 1e-9 }
        spliced = before + after.map { |p| p.dup.tap { |q| q.t = (p.t - (finish - start)).round(6) }.freeze }
        x = EventAnalysis.call(load.dup.tap { |l| l.timeline = spliced.freeze }.freeze, at: start + 1e-9)
        limit = 2 * median(before.filter_map(&:p99_us).select(&:positive?))
        back = (p99_back(after, limit, step) if limit.positive?)
        back_s = back && (back.t - finish + step).round(2)
        spike = Spike.verdict(spike_figures(profile, load, i, back_s))
        x = own_requests(x, (load.stages || [])[i + 1], profile.stages[i + 1].asked)
        x.merge("spike" => profile.stages[i].label, "spike_end_s" => finish, "p99_limit_us" => (limit.round if limit.positive?),
          "p99_back_s" => back_s, "spike_verdict" => spike.word, "spike_reason" => spike.reason)
      end

      # Throughput by completion time reads "no lasting effect" while a
      # server over capacity serves the spike's backlog at its capacity, and
      # the stage after's own requests (by intended time) can go unanswered
      # meanwhile (dropped: every connection held by the backlog). Under 90%
      # of them answered well, the stage after did not recover, and the words
      # say both. after: the stage after's figures; asked: its requests.
      def own_requests(x, after, asked)
        good = after&.good.to_i
        return x if after.nil? || asked.to_i.zero? || good >= EventAnalysis::RECOVERED * asked
        x.merge("verdict" => "not recovered", "recovered" => false,
          "verdict_reason" => format("%d of the %d requests asked in the stage after were answered well (%d dropped, %d errors); " \
            "by completion time alone: %s", good, asked, after.dropped.to_i, after.errors.to_i, EventAnalysis.words(x)))
      end

      # What Spike reads of spike i: its stage and the one before (by
      # intended time), the most served in a window as long as the spike
      # (from its start to the end of the stage after), and the p99's return.
      def spike_figures(profile, load, i, back_s)
        stages = load.stages || []
        before = stages[i - 1]
        spike = stages[i]
        stage = profile.stages[i]
        Spike::Figures.new(label: stage.label, asked_rps: stage.asked / stage.seconds, asked: stage.asked, good: spike&.good.to_i,
          errors: spike&.errors.to_i, dropped: spike&.dropped.to_i, error_kinds: error_kinds(load, profile.starts[i], after_end(profile, i)), before_p90_us: before&.latency&.at(:p90), before_n: before&.latency&.n.to_i,
          spike_p90_us: spike&.latency&.at(:p90), spike_n: spike&.latency&.n.to_i,
          peak_good_rps: peak_rate(load, profile.starts[i], after_end(profile, i), stage.seconds),
          drained_s: back_s, after_s: profile.stages[i + 1].seconds, connections: load.connections_requested,
          before_p50_us: before&.latency&.at(:p50)).freeze
      end

      def after_end(profile, i) = profile.starts[i + 1] + profile.stages[i + 1].seconds

      def error_kinds(load, from, to)
        load.timeline.select { |p| p.t >= from - 1e-9 && p.t < to - 1e-9 }.flat_map { |p| p.error_kinds.select { |_, n| n.to_i.positive? }.keys }.uniq.sort.freeze
      end

      # The most good responses per second in any window of `seconds` (at
      # least one slice) between from and to, by completion time.
      def peak_rate(load, from, to, seconds)
        step = load.interval_s
        slices = load.timeline.select { |p| p.t >= from - 1e-9 && p.t < to - 1e-9 }
        width = [(seconds / step).round, 1].max.clamp(1, [slices.size, 1].max)
        return 0.0 if slices.empty?
        slices.each_cons(width).map { |w| w.sum(&:good) }.max / (width * step)
      end

      # The first slice from which the p99 stays under the limit for
      # EventAnalysis::HOLD_S: a slice that answered, and every slice of the
      # window that answered under the limit (a slice with no response has
      # no p99; a server that answers nothing is not back).
      def p99_back(after, limit, step)
        width = [(EventAnalysis::HOLD_S / step).round, 1].max
        i = (0..after.size - width).find do |j|
          window = after[j, width]
          window.first.completed.positive? && window.all? { |p| p.completed.zero? || p.p99_us.to_i <= limit }
        end
        i && after[i]
      end

      def median(values)
        return 0 if values.empty?
        sorted = values.sort
        sorted[sorted.size / 2].to_f
      end
    end
  end
end
