# frozen_string_literal: true

require_relative "../stats/median"
require_relative "../support/format"
require_relative "verdict"

module Arena
  module Verdicts
    # One answer for a rate sweep repeated over rounds (issue 35): the
    # rounds' knees as one verdict with their median and spread, where the
    # report said one "knee:" or "none:" line per round. Pure: the rounds'
    # summary figures in (each the `extra` of a rate summary: verdict,
    # verdict_reason, knee_rps), a Verdict out.
    #
    # Every round found a knee: "knee", the median knee with the range and
    # each round's. Every round gave the same other word ("none", "stopped",
    # "cannot judge"): that word, with the first round's reason. Rounds that
    # disagree: "unsettled", how many said what, and the knees' range, since
    # then no single figure stands for the sweep.
    module KneeRounds
      extend self

      def call(rounds)
        words = rounds.map { |x| x["verdict"] || (x["knee_rps"] ? "knee" : "none") }
        knees = rounds.zip(words).filter_map { |x, word| x["knee_rps"]&.to_f if word == "knee" }
        n = rounds.size
        if words.uniq == ["knee"]
          Verdicts::Verdict.of("knee", "#{rps(median(knees))} req/s, the median of #{n} rounds (#{spread(knees)})")
        elsif words.uniq.size == 1
          Verdicts::Verdict.of(words.first, "in all #{n} rounds#{"; round 1: #{rounds.first["verdict_reason"]}" if rounds.first["verdict_reason"]}")
        else
          counts = words.tally.sort_by { |w, c| [-c, w] }.map { |w, c| "#{w} in #{c}" }.join(", ")
          Verdicts::Verdict.of("unsettled", "the #{n} rounds disagree: #{counts}#{"; knees #{spread(knees)}" if knees.any?}")
        end
      end

      def spread(knees)
        return "one round: #{rps(knees.first)} req/s" if knees.size == 1
        "#{rps(knees.min)}-#{rps(knees.max)} req/s over the rounds: #{knees.map { |k| rps(k) }.join(", ")}"
      end

      def median(values) = Stats.median(values)

      def rps(value) = Support::Format.rps(value)
    end
  end
end
