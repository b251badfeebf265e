# frozen_string_literal: true

module Arena
  module Stats
    # b against a where both were measured in the same rounds: round i of a and
    # round i of b ran next to each other in time (the round's order shuffled,
    # RMIT), so whatever slowed the machine that minute slowed both. The test
    # is on the per-round log ratios log(b_i / a_i): the shared drift cancels in
    # each ratio, and what is left is the two sides' own noise. On this VM the
    # drift is 9-18% (sd) over minutes; a test on each side's figures alone
    # (Welch, DifferenceMethod) carries it and cannot see a 5% lead, while the
    # ratios can (test/unit/stats_paired_test.rb simulates both).
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
      module_function

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
        build(pct(mean), pct(low), pct(high), p_value, level, names, n, band_pct)
      end

      def build(estimate, low, high, p_value, level, names, n, band_pct)
        name_a, name_b = names
        significant = p_value < level
        equivalent = low >= -band_pct && high <= band_pct
        words = format("%s is %+.1f%% against %s (%.0f%% interval %+.1f%% to %+.1f%%; %s, %d rounds, p=%.3g",
          name_b, estimate, name_a, (1 - level) * 100, low, high, METHOD, n, p_value)
        reason =
          if equivalent then "equivalent within ±#{format("%g", band_pct)}%: #{words})"
          elsif significant then "#{words} < #{level})"
          else "not distinguishable here: #{words} >= #{level})"
          end
        Difference.new(estimate_pct: estimate, low_pct: low, high_pct: high, p_value: p_value, level: level,
          method: METHOD, reason: reason, significant: significant, n: n, equivalent: equivalent).freeze
      end

      def not_measured(why, level, n)
        Difference.new(estimate_pct: nil, low_pct: nil, high_pct: nil, p_value: nil, level: level, method: METHOD,
          reason: "not distinguishable here: #{why}", significant: false, n: n, equivalent: false).freeze
      end

      def pct(log_ratio) = (Math.exp(log_ratio) - 1.0) * 100.0
    end
  end
end
