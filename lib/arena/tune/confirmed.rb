# frozen_string_literal: true

require_relative "../stats/median"
require_relative "../stats/stats"
require_relative "../verdicts/pick"
require_relative "more_time"

module Arena
  module Tune
    # What the confirmation rounds say (Confirmation::Result in, a value
    # out; pure: no process, no clock). Only the rounds not flagged for the
    # machine's speed count, and only rounds every side ran.
    #
    # - The answer against the runner-up: as `arena run` picks (Verdicts::Pick):
    #   goodput significantly ahead and not equivalent; equivalent within
    #   ±band, the lower memory, then the lower p99, each only beyond the
    #   band; else neither is shown ahead, and the higher median stands (the
    #   words say so). The search's order is never the tie-break.
    # - The gain over the baseline: the pick against what the app runs
    #   today, on their paired log ratios. The change is worth making only
    #   when the pick is significantly ahead and not equivalent; otherwise
    #   "keep what you run".
    # - Staying: the best config the search found for the baseline's own
    #   server (`stay`, which may be any side, the baseline's included),
    #   against the baseline on the same rounds (`stay_gain`).
    Confirmed = Struct.new(:pick, :other, :baseline, :margin, :gain, :verdict, :keep, :rounds, :flagged, :speed_range,
      :rps, :p99_ms, :pss_kb, :band_pct, :stopped, :stay, :stay_gain, :counted, :round_s, keyword_init: true)

    class Confirmed
      BAND_PCT = 3.0

      # result: Confirmation::Result; baseline_key: the label of the side
      # that is the baseline's config (it may be the answer's or the runner-up's).
      # The roles in the order the margin is taken against: the runner-up
      # first, the stay config only when there is no other.
      ROLES = %w[answer runner-up stay baseline].freeze

      # stay_key: the label of the baseline's server's best config (nil: not searched).
      def self.decide(result, baseline_key:, band_pct: BAND_PCT, stay_key: nil)
        counted = result.counted_numbers
        contenders = result.sides.select { |s| s.alive? && s.role != "baseline" }
        contenders = result.sides.select(&:alive?) if contenders.empty?
        base = result.sides.find { |s| s.key == baseline_key }
        return new(rounds: 0, keep: false, stopped: result.stopped, flagged: result.flagged, band_pct: band_pct) if contenders.empty?
        picked = Verdicts::Pick.call(contenders.map { |s| candidate(s, counted) }, band_pct: band_pct)
        pick = contenders.find { |s| s.key == picked.pick&.name } || fallback(contenders, counted, picked.verdict)
        other = (contenders - [pick]).min_by { |s| ROLES.index(s.role) }
        margin = other && paired(other, pick, counted, band_pct)
        gain = against(base, pick, counted, band_pct)
        keep = base.equal?(pick) || (gain && !ahead?(gain)) || false
        stay = result.sides.find { |s| s.key == stay_key }
        rps = Stats.interval(common([pick], counted).map { |n| pick.rps[n] })
        new(pick: pick, other: other, baseline: base, margin: margin, gain: gain, verdict: picked.verdict, keep: keep,
          rounds: common([pick, other].compact, counted).size, flagged: result.flagged, speed_range: speed_range(result),
          rps: rps, p99_ms: median(pick.p99_ms, counted), pss_kb: median(pick.pss_kb, counted), band_pct: band_pct,
          stopped: result.stopped, stay: stay, stay_gain: (against(base, stay, counted, band_pct) if stay&.alive?),
          counted: counted, round_s: round_s(result)).freeze
      end

      # b against the baseline, nil when the baseline did not run or is b.
      def self.against(base, b, counted, band_pct) = (base&.alive? && !base.equal?(b)) ? paired(base, b, counted, band_pct) : nil

      # Whether every ratio's interval is within ±target_pct (Confirmation's judge).
      def self.narrow?(result, target_pct:)
        counted = result.counted_numbers
        alive = result.sides.select(&:alive?)
        return true if alive.size < 2
        first = alive.first
        alive.drop(1).all? do |side|
          d = paired(side, first, counted, BAND_PCT)
          d.measured? && (d.high_pct - d.low_pct) / 2.0 <= target_pct
        end
      end

      def self.ahead?(d) = d.measured? && d.significant? && !d.equivalent? && d.estimate_pct.positive?

      # b (the pick) against a, on the counted rounds both ran.
      def self.paired(a, b, counted, band_pct)
        rounds = common([a, b], counted)
        Stats.paired(rounds.map { |n| a.rps[n] }, rounds.map { |n| b.rps[n] }, names: [a.key, b.key], band_pct: band_pct)
      end

      def self.common(sides, counted)
        sides.map { |s| s.rps.keys }.reduce(counted) { |acc, keys| acc & keys }
      end

      def self.candidate(side, counted)
        rounds = common([side], counted)
        Verdicts::Pick::Candidate.new(name: side.key, rps: rounds.map { |n| side.rps[n] }, rounds: rounds, flags: [],
          p99: rounds.filter_map { |n| side.p99_ms[n] }.then { |v| (v.size == rounds.size) ? v : [] },
          pss: rounds.filter_map { |n| side.pss_kb[n] }.then { |v| (v.size == rounds.size) ? v : [] })
      end

      # No pick by the rule: equivalent, the one with less memory (median);
      # otherwise the higher median goodput.
      def self.fallback(sides, counted, verdict)
        if verdict&.word == "equivalent"
          light = sides.min_by { |s| median(s.pss_kb, counted) || Float::INFINITY }
          return light if median(light.pss_kb, counted)
        end
        sides.max_by { |s| median(s.rps, counted) || 0.0 }
      end

      def self.median(by_round, counted)
        Stats.median(counted.filter_map { |n| by_round[n] })
      end

      # The counted rounds' speed against the run's median: [slowest, fastest].
      def self.speed_range(result)
        return nil unless result.median_ms
        speeds = result.counted.filter_map(&:speed_ms).map { |ms| result.median_ms / ms }
        speeds.empty? ? nil : [speeds.min.round(3), speeds.max.round(3)]
      end

      # The mean seconds of a round that recorded its time, nil when none did.
      def self.round_s(result)
        seconds = result.rounds.filter_map(&:seconds)
        seconds.empty? ? nil : seconds.sum / seconds.size
      end

      def found? = !pick.nil?

      # The answer's compared pairs (its margin, its gain) as MoreTime reads
      # them: the pick over the other side, on the counted rounds both ran.
      def log_pairs
        [other, (baseline unless baseline.equal?(pick) || !baseline&.alive?)].compact.map do |side|
          rounds = Confirmed.common([side, pick], counted || [])
          MoreTime.pair(rounds.map { |n| side.rps[n] }, rounds.map { |n| pick.rps[n] })
        end
      end

      # The gain as a ratio and interval ([ratio, [low, high]]), nil when not measured.
      def gain_ratio = ratio_of(gain)

      def margin_ratio = ratio_of(margin)

      def stay_ratio = ratio_of(stay_gain)

      private

      def ratio_of(d)
        return nil unless d&.measured?
        [(1 + d.estimate_pct / 100.0).round(4), [(1 + d.low_pct / 100.0).round(4), (1 + d.high_pct / 100.0).round(4)]]
      end
    end
  end
end
