# frozen_string_literal: true

module Arena
  module Stats
    # Ordinary least squares of y = intercept + slope × x, with what says how
    # far to trust it: R², the residuals' standard deviation and the slope's
    # standard error. Used for memory growth over a soak (x: seconds) and for
    # memory against worker count (x: workers).
    LinearFit = Struct.new(:slope, :intercept, :r2, :n, :sigma, :slope_se, keyword_init: true) do
      def self.of(points)
        points = points.reject { |x, y| x.nil? || y.nil? }
        n = points.size
        return nil if n < 2
        mx = points.sum { |x, _| x.to_f } / n
        my = points.sum { |_, y| y.to_f } / n
        sxx = points.sum { |x, _| (x - mx)**2 }
        return nil if sxx.zero?
        sxy = points.sum { |x, y| (x - mx) * (y - my) }
        slope = sxy / sxx
        intercept = my - slope * mx
        ss_res = points.sum { |x, y| (y - intercept - slope * x)**2 }
        ss_tot = points.sum { |_, y| (y - my)**2 }
        # With n = 2 a line fits exactly: no spread is known.
        sigma = (n > 2) ? Math.sqrt(ss_res / (n - 2)) : 0.0
        new(slope: slope, intercept: intercept, r2: ss_tot.zero? ? 1.0 : 1 - ss_res / ss_tot, n: n, sigma: sigma,
          slope_se: (n > 2) ? sigma / Math.sqrt(sxx) : 0.0).freeze
      end

      def at(x) = intercept + slope * x
    end
  end
end
