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
        [m.with(extra: Verdicts::Profile.analyse(profile, m.load))]
      end

      def self.finding(m)
        return nil unless m.scenario == key
        return "#{m.server} #{m.workload} profile: not measured, #{m.extra["reason"]}" if m.extra["reason"]
        stages = m.extra["stages"].map do |s|
          "#{s["label"]}: #{Support::Format.rps(s["sent_rps"])} of #{Support::Format.rps(s["asked_rps"])} req/s sent, " \
            "#{Support::Format.rps(s["good_rps"])} good, #{tail(s)}, " \
            "#{s["errors"]} errors, #{s["dropped"]} dropped"
        end
        spikes = m.extra["recoveries"].map do |r|
          p99 = r["p99_back_s"] ? "p99 back under #{Support::Format.duration_us(r["p99_limit_us"])} in #{r["p99_back_s"]} s" : "p99 not back under #{Support::Format.duration_us(r["p99_limit_us"])}"
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
        s = Support::Short
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
        return "p99 #{Support::Format.duration_us(stage["p99_us"])}" if stage["p99_us"]
        stage["p90_us"] ? "p90 #{Support::Format.duration_us(stage["p90_us"])}" : "p99 -"
      end

      def self.sections(document, colors:) = Report::TimelineCharts.new(document, scenario: self, colors: colors).sections

      # A profile has no single event: its stage boundaries are its marks.
      def self.event_label(_m) = nil

      # The stage boundaries on its timeline.
      def self.marks(m) = Array(figures_of(m)&.marks).map { |v| {x: v["x"], label: v["label"]} }
    end
  end
end
