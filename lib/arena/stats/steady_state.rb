# frozen_string_literal: true

require_relative "median"
require_relative "student_t"

module Arena
  module Stats
    # Where warm-up ends in a series of short slices of throughput (req/s of
    # each 0.5 s, say): the index of the first slice of the first window of
    # `window` slices that (1) shows no significant trend (the least-squares
    # slope's t-test at `level`, two-sided) and (2) sits within ±band_pct of the
    # window's median. nil: no such window yet (still warming, or too few
    # slices). Called after each new slice, the first non-nil answer is where
    # warm-up ended; the caller bounds the wait (--warmup-max).
    #
    # Why both rules: the trend test alone passes a noisy ramp (5 noisy points
    # rarely make a significant slope), the band alone passes a slow, smooth
    # climb of a few percent per slice. Together a JIT or cache warming up
    # reads as "still moving" and a flat, noisy server as "steady".
    # (Hyperfine and criterion use a fixed warm-up count or time; JMH fixed
    # warm-up iterations. Arena's servers range from a C core steady in 0.1 s to
    # a cold Rails process that needs seconds, so the series decides.)
    module SteadyStateMethod
      module_function

      def call(slices, band_pct:, window:, level:)
        values = slices.map(&:to_f)
        return nil if values.size < window
        (0..(values.size - window)).find { |start| steady?(values[start, window], band_pct, level) }
      end

      def steady?(xs, band_pct, level)
        median = Stats.median(xs.sort)
        return false unless median.positive?
        return false unless xs.all? { |x| (x - median).abs <= median * band_pct / 100.0 }
        !trend?(xs, level)
      end

      # Least-squares slope of xs against 0, 1, 2...; significant when its
      # t-test's two-sided p is below level.
      def trend?(xs, level)
        n = xs.size
        mx = (n - 1) / 2.0
        my = xs.sum / n
        sxx = (0...n).sum { |i| (i - mx)**2 }
        slope = (0...n).sum { |i| (i - mx) * (xs[i] - my) } / sxx
        residual = (0...n).sum { |i| (xs[i] - my - slope * (i - mx))**2 }
        return !slope.zero? if residual.zero?
        se = Math.sqrt(residual / (n - 2) / sxx)
        StudentT.two_sided_p(slope / se, n - 2) < level
      end
    end
  end
end
