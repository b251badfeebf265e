# frozen_string_literal: true

require_relative "../load/profile"
require_relative "../plan/estimate"
require_relative "../verdicts/event_analysis"
require_relative "../verdicts/profile"
require_relative "base"

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
    end
  end
end
