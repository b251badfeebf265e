# frozen_string_literal: true

module Arena
  module Scenarios
    # A load profile (--profile): open-model stages in order, one engine run
    # whose schedule follows them (coordinated omission corrected as in
    # `rate`). Each stage is reported on its own (its requests by intended
    # time: asked and sent rate, goodput, p99, errors, dropped); after each
    # spike, recovery is read as a crash's is (Verdicts::EventAnalysis: the goodput of
    # the stage after against the stage before, back to 90% held 0.5 s), and
    # with it the time until the p99 per slice is back under twice what it
    # was before the spike.
    class Profile < Base
      scenario "profile", "open-model stages in order (--profile 'ramp 0..500/s 60s, hold 500/s 120s, spike 1500/s 10s, ...'): each stage, recovery after a spike"
      setting :profile, flag: "--profile STAGES", type: Load::Profile,
        help: "profile: open-model stages in order, e.g. 'ramp 0..500/s 60s, hold 500/s 120s, spike 1500/s 10s, hold 500/s 60s'"

      figures :profile, :stages, :marks, :recoveries, :reason, :event_at_s

      def planned(_load, _adapter) = 1

      def self.long? = true

      def self.seconds(guess)
        stages = guess.load.profile ? Load::Profile.parse(guess.load.profile).total_s : 0
        Plan::Estimate::MEASURE_S + guess.latency_s + stages
      end

      def call(ctx)
        return [summary_record(ctx, "not applicable", {"reason" => "give the stages with --profile (#{Load::Profile::EXAMPLE})"})] unless ctx.load.profile
        profile = Load::Profile.parse(ctx.load.profile)
        # 100 ms slices for recovery, unless the timeline would grow past 6,000 of them.
        slice_ms = (profile.total_s <= 600) ? Verdicts::EventAnalysis::TIMELINE_MS : 1000
        peak = profile.stages.map { |s| [s.from_rps, s.to_rps].max }.max
        settings = ctx.settings(profile: profile.engine_spec, duration: nil, warmup: 0, timeline_ms: slice_ms,
          connections: [ctx.load.connections * 4, (peak * 0.05).ceil, 64].max.clamp(1, 20_000))
        m = measure(ctx, settings, variant: "stages")
        [m.with(extra: self.class.analyse(profile, m.load))]
      end

      def self.finding(m)
        return nil unless m.scenario == key
        return "#{m.server} #{m.workload} profile: not measured, #{m.extra["reason"]}" if m.extra["reason"]
        stages = m.extra["stages"].map do |s|
          "#{s["label"]}: #{Report::Format.rps(s["sent_rps"])} of #{Report::Format.rps(s["asked_rps"])} req/s sent, " \
            "#{Report::Format.rps(s["good_rps"])} good, #{tail(s)}, " \
            "#{s["errors"]} errors, #{s["dropped"]} dropped"
        end
        spikes = m.extra["recoveries"].map do |r|
          p99 = r["p99_back_s"] ? "p99 back under #{Report::Format.duration_us(r["p99_limit_us"])} in #{r["p99_back_s"]} s" : "p99 not back under #{Report::Format.duration_us(r["p99_limit_us"])}"
          spike = r["spike_verdict"] ? "#{Verdicts::Verdict.of(r["spike_verdict"], r["spike_reason"])}; " : ""
          "#{r["spike"]}: #{spike}throughput after it: #{Verdicts::EventAnalysis.words(r)}; #{p99}"
        end
        "#{m.server} #{m.workload} profile: #{(stages + spikes).join("; ")}"
      end

      # The stage's p99, or its p90 where it has too few responses for a p99.
      # "spike 1500/s 10s: queued and shed, then recovered"; with no spike,
      # "4 stages: 12 errors, 48 dropped".
      def self.brief(m)
        return nil unless m.scenario == key
        return ["profile", not_measured(m.extra["reason"])] if m.extra["reason"]
        s = Report::Short
        stages = m.extra["stages"]
        spikes = m.extra["recoveries"]
        r = spikes.first
        unless r
          return ["profile", "#{stages.size} stages: #{s.rate(stages.sum { |t| t["errors"].to_i })} errors, " \
            "#{s.rate(stages.sum { |t| t["dropped"].to_i })} dropped"]
        end
        more = (spikes.size > 1) ? " (+#{spikes.size - 1} more)" : ""
        ["profile", "#{r["spike"]}: #{[r["spike_verdict"], r["verdict"]].compact.join(", then ")}#{more}"]
      end

      def self.tail(stage)
        return "p99 #{Report::Format.duration_us(stage["p99_us"])}" if stage["p99_us"]
        stage["p90_us"] ? "p90 #{Report::Format.duration_us(stage["p90_us"])}" : "p99 -"
      end

      def self.sections(document, colors:) = Report::TimelineCharts.new(document, scenario: self, colors: colors).sections

      # A profile has no single event: its stage boundaries are its marks.
      def self.event_label(_m) = nil

      # The stage boundaries on its timeline.
      def self.marks(m) = Array(figures_of(m)&.marks).map { |v| {x: v["x"], label: v["label"]} }

      # The stages' figures, their boundaries (for the chart) and the
      # recovery after each spike. Pure: a profile and a load in, a hash out.
      def self.analyse(profile, load)
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
      # after it moved back onto the spike's start, so Verdicts::EventAnalysis reads
      # "after" against "before" exactly as it reads a kill.
      def self.recovery(profile, load, i)
        step = load.interval_s
        start = profile.starts[i]
        finish = start + profile.stages[i].seconds
        before_from = profile.starts[i - 1]
        after_to = finish + profile.stages[i + 1].seconds
        before = load.timeline.select { |p| p.t >= before_from && p.t + step <= start + 1e-9 }
        after = load.timeline.select { |p| p.t >= finish - 1e-9 && p.t < after_to - 1e-9 }
        spliced = before + after.map { |p| p.dup.tap { |q| q.t = (p.t - (finish - start)).round(6) }.freeze }
        x = Verdicts::EventAnalysis.call(load.dup.tap { |l| l.timeline = spliced.freeze }.freeze, at: start)
        limit = 2 * median(before.filter_map(&:p99_us).select(&:positive?))
        back = limit.positive? ? p99_back(after, limit, step) : nil
        back_s = back && (back.t - finish + step).round(2)
        spike = Verdicts::Spike.verdict(spike_figures(profile, load, i, back_s))
        x = own_requests(x, (load.stages || [])[i + 1], profile.stages[i + 1].asked)
        x.merge("spike" => profile.stages[i].label, "spike_end_s" => finish, "p99_limit_us" => limit.positive? ? limit.round : nil,
          "p99_back_s" => back_s, "spike_verdict" => spike.word, "spike_reason" => spike.reason)
      end

      # Throughput by completion time reads "no lasting effect" while a
      # server over capacity serves the spike's backlog at its capacity, and
      # the stage after's own requests (by intended time) can go unanswered
      # meanwhile (dropped: every connection held by the backlog). Under 90%
      # of them answered well, the stage after did not recover, and the words
      # say both. after: the stage after's figures; asked: its requests.
      def self.own_requests(x, after, asked)
        good = after&.good.to_i
        return x if after.nil? || asked.to_i.zero? || good >= Verdicts::EventAnalysis::RECOVERED * asked
        x.merge("verdict" => "not recovered", "recovered" => false,
          "verdict_reason" => format("%d of the %d requests asked in the stage after were answered well (%d dropped, %d errors); " \
            "by completion time alone: %s", good, asked, after.dropped.to_i, after.errors.to_i, Verdicts::EventAnalysis.words(x)))
      end

      # What Verdicts::Spike reads of spike i: its stage and the one before (by
      # intended time), the most served in a window as long as the spike
      # (from its start to the end of the stage after), and the p99's return.
      def self.spike_figures(profile, load, i, back_s)
        stages = load.stages || []
        before = stages[i - 1]
        spike = stages[i]
        stage = profile.stages[i]
        Verdicts::Spike::Figures.new(label: stage.label, asked_rps: stage.asked / stage.seconds, asked: stage.asked, good: spike&.good.to_i,
          errors: spike&.errors.to_i, dropped: spike&.dropped.to_i, error_kinds: error_kinds(load, profile.starts[i], after_end(profile, i)), before_p90_us: before&.latency&.at(:p90), before_n: before&.latency&.n.to_i,
          spike_p90_us: spike&.latency&.at(:p90), spike_n: spike&.latency&.n.to_i,
          peak_good_rps: peak_rate(load, profile.starts[i], after_end(profile, i), stage.seconds),
          drained_s: back_s, after_s: profile.stages[i + 1].seconds, connections: load.connections_requested,
          before_p50_us: before&.latency&.at(:p50)).freeze
      end

      def self.after_end(profile, i) = profile.starts[i + 1] + profile.stages[i + 1].seconds

      def self.error_kinds(load, from, to)
        load.timeline.select { |p| p.t >= from - 1e-9 && p.t < to - 1e-9 }.flat_map { |p| p.error_kinds.select { |_, n| n.to_i.positive? }.keys }.uniq.sort.freeze
      end

      # The most good responses per second in any window of `seconds` (at
      # least one slice) between from and to, by completion time.
      def self.peak_rate(load, from, to, seconds)
        step = load.interval_s
        slices = load.timeline.select { |p| p.t >= from - 1e-9 && p.t < to - 1e-9 }
        width = [(seconds / step).round, 1].max.clamp(1, [slices.size, 1].max)
        return 0.0 if slices.empty?
        slices.each_cons(width).map { |w| w.sum(&:good) }.max / (width * step)
      end

      # The first slice from which the p99 stays under the limit for
      # Verdicts::EventAnalysis::HOLD_S: a slice that answered, and every slice of the
      # window that answered under the limit (a slice with no response has
      # no p99; a server that answers nothing is not back).
      def self.p99_back(after, limit, step)
        width = [(Verdicts::EventAnalysis::HOLD_S / step).round, 1].max
        i = (0..after.size - width).find do |j|
          window = after[j, width]
          window.first.completed.positive? && window.all? { |p| p.completed.zero? || p.p99_us.to_i <= limit }
        end
        i && after[i]
      end

      def self.median(values)
        return 0 if values.empty?
        sorted = values.sort
        sorted[sorted.size / 2].to_f
      end
    end
  end
end
