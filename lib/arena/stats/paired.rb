# frozen_string_literal: true

require_relative "difference"
require_relative "student_t"

module Arena
  module Stats
    # b against a where both were measured in the same rounds: round i of a and
    # round i of b ran next to each other in time (the round's order shuffled,
    # RMIT), so whatever slowed the machine that minute slowed both. The test
    # is on the per-round log ratios log(b_i / a_i): the shared drift cancels in
    # each ratio, and what is left is the two sides' own noise. On this VM the
    # drift is 9-18% (sd) over minutes; a test on each side's figures alone
    # (Welch, DifferenceMethod) carries it and cannot see a 5% lead, while the
    # ratios can (test/unit/stats/paired_test.rb simulates both).
    #
    # Student's t on the ratios, two-sided at `level`; the interval is the
    # (1 - level) t interval of their mean, turned back into percent. Like
    # criterion's noise threshold, a difference can be too small to matter:
    # when that whole interval lies within ±band_pct the pair is `equivalent`
    # ("equivalent within ±3%"), which a decision treats as a tie to be broken
    # by a stated second criterion. Using the (1 - level) interval rather than
    # the two one-sided tests' (1 - 2 level) one makes "equivalent" the
    # stricter word. Equivalent and significant can both hold (a real 0.9%
    # inside ±3%): the reason leads with "equivalent".
    module PairedMethod
      extend self

      MINIMUM = 3
      METHOD = "paired t on log ratios"

      def call(a, b, level:, names:, band_pct:)
        raise ArgumentError, "a paired test needs both sides from the same rounds (#{a.size} and #{b.size} figures)" unless a.size == b.size
        a = a.map(&:to_f)
        b = b.map(&:to_f)
        n = a.size
        name_a, name_b = names
        if n < MINIMUM
          return not_measured("#{n} paired round(s) of #{name_a} and #{name_b}; the test needs #{MINIMUM}", level, n)
        end
        unless (a + b).all?(&:positive?)
          return not_measured("a round served nothing (a figure <= 0 has no logarithm)", level, n)
        end
        ratios = a.zip(b).map { |x, y| Math.log(y / x) }
        test(ratios, level: level, names: names, band_pct: band_pct)
      end

      UNPAIRED = " (unpaired: not measured in the same rounds)"

      def by_rounds(a, b, rounds_a:, rounds_b:, level:, names:, band_pct:)
        xa, xb = matched(a, rounds_a, b, rounds_b)
        return call(xa, xb, level: level, names: names, band_pct: band_pct) if xa.size >= MINIMUM
        welch = DifferenceMethod.call(a, b, level: level, names: names, band_pct: band_pct)
        return welch unless welch.measured?
        Difference.new(**welch.to_h, reason: welch.reason + UNPAIRED).freeze
      end

      # The figures of the rounds both sides have, round by round (their
      # order does not matter to the test: a sum of ratios). A round with two
      # figures on one side (a noisy figure and its re-run) gives its later
      # one: the re-run is the one measured clean.
      def matched(a, rounds_a, b, rounds_b)
        return [[], []] unless rounds_a && rounds_b && rounds_a.size == a.size && rounds_b.size == b.size
        by_a = rounds_a.zip(a).to_h
        by_b = rounds_b.zip(b).to_h
        common = by_a.keys & by_b.keys
        [common.map { |r| by_a[r] }, common.map { |r| by_b[r] }]
      end

      def test(ratios, level:, names:, band_pct:)
        n = ratios.size
        mean = ratios.sum / n
        se = Math.sqrt(ratios.sum { |r| (r - mean)**2 } / (n - 1) / n)
        if se.zero?
          p_value = mean.zero? ? 1.0 : 0.0
          low = high = mean
        else
          p_value = StudentT.two_sided_p(mean / se, n - 1)
          half = StudentT.quantile(level / 2.0, n - 1) * se
          low = mean - half
          high = mean + half
        end
        DifferenceMethod.build(pct(mean), pct(low), pct(high), p_value, level: level, names: names, n: n,
          method: METHOD, band_pct: band_pct, words_method: "#{METHOD}, #{n} rounds")
      end

      def not_measured(why, level, n)
        Difference.new(estimate_pct: nil, low_pct: nil, high_pct: nil, p_value: nil, level: level, method: METHOD,
          reason: "not distinguishable here: #{why}", significant: false, n: n, equivalent: false).freeze
      end

      def pct(log_ratio) = (Math.exp(log_ratio) - 1.0) * 100.0
    end
  end
end
