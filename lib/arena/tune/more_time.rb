# frozen_string_literal: true

require_relative "../stats/student_t"
require_relative "../support/format"

module Arena
  module Tune
    # What more confirmation rounds would buy: from the per-round spread of
    # a pair's log ratio (its SD over the rounds run) and the time a round
    # took, the rounds and seconds that would bring the interval within
    # ±target. Pure: values in, a value and its sentence out.
    #
    # The interval is the one Stats.paired gives: mean ± t(0.975, n-1)·sd/√n
    # on the log ratios, turned back to percent; its "±" is half its width,
    # exp(mean)·sinh(half)·100, as Confirmed.narrow? reads it. The rounds
    # needed are the fewest n' with that half-width within the target at the
    # same mean and SD (t shrinks with n' too). The time is those rounds and
    # one more (a round may read the machine off and be run again, and the
    # last must fit before the deadline), at the mean time a round took.
    module MoreTime
      extend self

      # The most rounds a sentence may ask for: past it, "more time" is not the lever.
      MOST_ROUNDS = 400
      LEVEL = 0.05

      # A compared pair's log ratios: their mean, SD and count.
      Pair = Struct.new(:mean, :sd, :n, keyword_init: true)

      # half_pct: the widest interval's ± now; rounds: the rounds it is from;
      # more_rounds: how many more the widest needs (nil: more than MOST_ROUNDS);
      # seconds: the time they take, rounded up to whole minutes.
      Need = Struct.new(:half_pct, :rounds, :more_rounds, :seconds, :target_pct, keyword_init: true) do
        def minutes = seconds && (seconds / 60)
      end

      # The log ratios of b over a, round by round (both positive): a Pair, or nil under 3 rounds.
      def pair(a, b)
        logs = a.zip(b).filter_map { |x, y| Math.log(y.to_f / x) if x.to_f.positive? && y.to_f.positive? }
        return nil if logs.size < 3
        mean = logs.sum / logs.size
        Pair.new(mean: mean, sd: Math.sqrt(logs.sum { |l| (l - mean)**2 } / (logs.size - 1)), n: logs.size).freeze
      end

      # The interval's ± (percent) of a pair's mean and SD over n rounds.
      def half_pct(mean:, sd:, n:)
        half = Stats::StudentT.quantile(LEVEL / 2.0, n - 1) * sd / Math.sqrt(n)
        Math.exp(mean) * Math.sinh(half) * 100.0
      end

      # The fewest rounds (>= n) that give ±target_pct at this mean and SD; nil past MOST_ROUNDS.
      def rounds_for(pair, target_pct:)
        (pair.n..MOST_ROUNDS).find { |k| half_pct(mean: pair.mean, sd: pair.sd, n: k) <= target_pct }
      end

      # pairs: the answer's compared pairs (its margin and its gain); nil when
      # every interval is within ±target_pct, or none can be read.
      def call(pairs:, seconds_per_round:, target_pct: 5.0)
        pairs = pairs.compact
        return nil if pairs.empty?
        widest = pairs.max_by { |p| half_pct(mean: p.mean, sd: p.sd, n: p.n) }
        half = half_pct(mean: widest.mean, sd: widest.sd, n: widest.n)
        return nil if half <= target_pct
        needs = pairs.map { |p| rounds_for(p, target_pct: target_pct)&.-(p.n) }
        more = needs.include?(nil) ? nil : needs.max
        seconds = (more && seconds_per_round&.positive?) ? ((more + 1) * seconds_per_round / 60.0).ceil * 60 : nil
        Need.new(half_pct: half, rounds: widest.n, more_rounds: more, seconds: seconds, target_pct: target_pct).freeze
      end

      # "±11% from 8 rounds; about 12 more minutes (`arena tune --resume DIR
      # --max-time 720`) would give ±5% at this machine's spread".
      def sentence(need, dir:)
        return nil unless need
        head = "±#{Support::Format.sig3(need.half_pct)}% from #{need.rounds} rounds"
        target = "±#{Support::Format.sig3(need.target_pct)}%"
        return "#{head}; more than #{MOST_ROUNDS} rounds would be needed for #{target} at this machine's spread" unless need.more_rounds
        return "#{head}; #{need.more_rounds} more rounds would give #{target} at this machine's spread" unless need.seconds
        minutes = need.minutes
        "#{head}; about #{minutes} more #{(minutes == 1) ? "minute" : "minutes"} " \
          "(`arena tune --resume #{dir} --max-time #{need.seconds}`) would give #{target} at this machine's spread"
      end
    end
  end
end
