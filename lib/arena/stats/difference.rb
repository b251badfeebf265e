# frozen_string_literal: true

require_relative "student_t"

module Arena
  module Stats
    # Is b different from a? `estimate_pct` is b against a (+10.0: b is 10%
    # higher), with its interval (`low_pct`..`high_pct`) and the test's p-value.
    # `reason` says it in words a pull request can quote. `n`: the rounds (per
    # side for Welch, pairs for the paired test). `equivalent`: the whole
    # interval lies inside the paired test's band (never set by Welch).
    Difference = Struct.new(:estimate_pct, :low_pct, :high_pct, :p_value, :level, :method, :reason, :significant,
      :n, :equivalent, keyword_init: true) do
      def significant? = significant

      def equivalent? = equivalent || false

      def measured? = !p_value.nil?
    end

    # The test: Welch's t on the logarithms of the per-round figures, two-sided,
    # at `level` (0.05 by default).
    #
    # Why this one: the rounds are few (6 a side by default, 3 in tune). A rank test
    # (Mann-Whitney) on 3 against 3 has only 20 orderings, so its smallest
    # two-sided p is 2/20 = 0.1: it can never say "different" at 0.05, however
    # far apart the servers are. The Kolmogorov-Smirnov test derailed_benchmarks
    # uses needs many samples per side for the same reason. Welch's t reaches
    # 0.05 from 3 a side when the spread is small against the gap; the log makes
    # the question "by what factor" (noise on throughput is multiplicative) and
    # the estimate a percentage; Welch rather than Student because two servers
    # rarely have the same spread. It assumes roughly log-normal round figures;
    # a disturbed round is flagged `noisy` and re-run rather than fed in.
    # The suite checks its false-positive rate on simulated equal servers.
    module DifferenceMethod
      extend self

      MINIMUM = 3
      METHOD = "Welch's t on log figures"

      def call(a, b, level:, names:, band_pct: nil)
        a = a.map(&:to_f)
        b = b.map(&:to_f)
        name_a, name_b = names
        if a.size < MINIMUM || b.size < MINIMUM
          return not_measured("#{name_a} has #{a.size} round(s), #{name_b} #{b.size}; the test needs #{MINIMUM} each", level, [a.size, b.size].min)
        end
        unless (a + b).all?(&:positive?)
          return not_measured("a round served nothing (a figure <= 0 has no logarithm)", level, [a.size, b.size].min)
        end
        la = a.map { |v| Math.log(v) }
        lb = b.map { |v| Math.log(v) }
        welch(la, lb, level: level, names: names, band_pct: band_pct)
      end

      def welch(la, lb, level:, names:, band_pct: nil)
        ma, va = mean_var(la)
        mb, vb = mean_var(lb)
        diff = mb - ma
        sa = va / la.size
        sb = vb / lb.size
        se = Math.sqrt(sa + sb)
        if se.zero?
          p_value = diff.zero? ? 1.0 : 0.0
          low = high = diff
        else
          df = (sa + sb)**2 / (sa**2 / (la.size - 1) + sb**2 / (lb.size - 1))
          p_value = StudentT.two_sided_p(diff / se, df)
          half = StudentT.quantile(level / 2.0, df) * se
          low = diff - half
          high = diff + half
        end
        build(pct(diff), pct(low), pct(high), p_value, level: level, names: names, n: [la.size, lb.size].min,
          method: METHOD, band_pct: band_pct)
      end

      # The Difference and its reason, for either test. With `band_pct`, a
      # whole interval within ±band_pct is `equivalent` and the reason leads
      # with it ("equivalent within ±3%: ..."), significant or not.
      def build(estimate, low, high, p_value, level:, names:, n:, method:, band_pct:, words_method: method)
        name_a, name_b = names
        significant = p_value < level
        equivalent = !band_pct.nil? && low >= -band_pct && high <= band_pct
        words = format("%s is %+.1f%% against %s (%g%% interval %+.1f%% to %+.1f%%; %s, p=%.3g",
          name_b, estimate, name_a, (1 - level) * 100, low, high, words_method, p_value)
        reason =
          if equivalent then "equivalent within ±#{format("%g", band_pct)}%: #{words})"
          elsif significant then "#{words} < #{level})"
          else "not distinguishable here: #{words} >= #{level})"
          end
        Difference.new(estimate_pct: estimate, low_pct: low, high_pct: high, p_value: p_value, level: level,
          method: method, reason: reason, significant: significant, n: n, equivalent: equivalent).freeze
      end

      def not_measured(why, level, n)
        Difference.new(estimate_pct: nil, low_pct: nil, high_pct: nil, p_value: nil, level: level, method: METHOD,
          reason: "not distinguishable here: #{why}", significant: false, n: n, equivalent: false).freeze
      end

      def mean_var(xs)
        mean = xs.sum / xs.size
        [mean, xs.sum { |x| (x - mean)**2 } / (xs.size - 1)]
      end

      def pct(log_ratio) = (Math.exp(log_ratio) - 1.0) * 100.0
    end
  end
end
