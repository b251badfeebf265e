# frozen_string_literal: true

module Arena
  module Stats
    # Student's t distribution: the two numbers the interval and the test need
    # (an upper-tail probability and a quantile), for any positive degrees of
    # freedom, including Welch's fractional ones. Written from the textbook
    # relation between t and the regularized incomplete beta function:
    # P(|T| > t) = I_x(df/2, 1/2) with x = df / (df + t^2).
    module StudentT
      module_function

      # P(T > t) for t >= 0 (and by symmetry below 0).
      def upper_tail(t, df)
        return 0.5 if t.zero?
        two_sided = IncompleteBeta.regularized(df / (df + t * t), df / 2.0, 0.5)
        t.positive? ? two_sided / 2.0 : 1.0 - two_sided / 2.0
      end

      # Two-sided p-value of an observed t.
      def two_sided_p(t, df) = IncompleteBeta.regularized(df / (df + t * t), df / 2.0, 0.5)

      # The t with P(T > t) = upper (0 < upper < 0.5): Newton's method on the
      # tail from the normal quantile's Cornish-Fisher correction, which lands
      # within a few percent; bisection takes over if a step leaves the bracket.
      def quantile(upper, df)
        t = start(upper, df)
        low = 0.0
        high = 1.0e4
        50.times do
          excess = upper_tail(t, df) - upper
          return t if excess.abs < 1.0e-12
          excess.positive? ? low = t : high = t
          step = t + excess / density(t, df)
          t = (step > low && step < high) ? step : (low + high) / 2.0
        end
        t
      end

      def density(t, df)
        log_c = Math.lgamma((df + 1) / 2.0)[0] - Math.lgamma(df / 2.0)[0] - 0.5 * Math.log(df * Math::PI)
        Math.exp(log_c - (df + 1) / 2.0 * Math.log(1 + t * t / df))
      end

      def start(upper, df)
        z = normal_quantile(upper)
        z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
      end

      # Upper-tail normal quantile (Abramowitz and Stegun 26.2.23, error < 4.5e-4:
      # only a starting point).
      def normal_quantile(upper)
        w = Math.sqrt(-2 * Math.log(upper))
        w - (2.515517 + 0.802853 * w + 0.010328 * w * w) / (1 + 1.432788 * w + 0.189269 * w * w + 0.001308 * w**3)
      end
    end

    # I_x(a, b) by its continued fraction (modified Lentz), using the symmetry
    # I_x(a, b) = 1 - I_(1-x)(b, a) where the fraction converges slowly.
    module IncompleteBeta
      module_function

      TINY = 1.0e-300
      EPSILON = 1.0e-14

      def regularized(x, a, b)
        return 0.0 if x <= 0.0
        return 1.0 if x >= 1.0
        log_front = Math.lgamma(a + b)[0] - Math.lgamma(a)[0] - Math.lgamma(b)[0] + a * Math.log(x) + b * Math.log(1.0 - x)
        front = Math.exp(log_front)
        if x < (a + 1.0) / (a + b + 2.0)
          front * fraction(x, a, b) / a
        else
          1.0 - front * fraction(1.0 - x, b, a) / b
        end
      end

      def fraction(x, a, b)
        c = 1.0
        d = nonzero(1.0 - (a + b) * x / (a + 1.0))
        d = 1.0 / d
        result = d
        (1..300).each do |m|
          even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
          d = 1.0 / nonzero(1.0 + even * d)
          c = nonzero(1.0 + even / c)
          result *= d * c
          odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
          d = 1.0 / nonzero(1.0 + odd * d)
          c = nonzero(1.0 + odd / c)
          step = d * c
          result *= step
          break if (step - 1.0).abs < EPSILON
        end
        result
      end

      def nonzero(value) = (value.abs < TINY) ? TINY : value
    end
  end
end
