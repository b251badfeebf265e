# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../../verdicts/event_analysis"
require_relative "../../verdicts/verdict"
require_relative "../timeline_side"

module Arena
  module Report
    module Sides
      # What the report says and draws of a load profile: each stage, each
      # spike's recovery, on a timeline with the stages marked.
      class Profile < TimelineSide
        side_of "profile"

        def finding(m)
          return nil unless m.scenario == scenario.key
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
        def brief(m)
          return nil unless m.scenario == scenario.key
          return ["profile", scenario.not_measured(m.extra["reason"])] if m.extra["reason"]
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

        def tail(stage)
          return "p99 #{Support::Format.duration_us(stage["p99_us"])}" if stage["p99_us"]
          stage["p90_us"] ? "p90 #{Support::Format.duration_us(stage["p90_us"])}" : "p99 -"
        end

        # A profile has no single event: its stage boundaries are its marks.
        def event_label(_m) = nil

        # The stage boundaries on its timeline.
        def marks(m) = Array(scenario.figures_of(m)&.marks).map { |v| {x: v["x"], label: v["label"]} }
      end
    end
  end
end
