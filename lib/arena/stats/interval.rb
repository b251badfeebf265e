# frozen_string_literal: true

require_relative "median"
require_relative "student_t"

module Arena
  module Stats
    # A figure from the rounds: the median of the per-round values and an
    # interval that holds the true median at `level` (0.95: 95 runs out of 100).
    # Under three values there is no interval: `measured?` is false and `reason`
    # says why, and reports print "not measured" instead of a range.
    Interval = Struct.new(:median, :low, :high, :n, :level, :method, :reason, keyword_init: true) do
      def measured? = !low.nil?

      # Half the interval's width against the median, in percent: the figure
      # `--precision 5%` compares with. Nil when there is no interval.
      def half_width_pct
        return nil unless measured?
        return 0.0 if median.zero? && high == low
        return Float::INFINITY if median.zero?
        (high - low) / 2.0 / median.abs * 100.0
      end

      def to_s
        return "#{format_value(median)} (not measured: #{reason})" unless measured?
        "#{format_value(median)} [#{format_value(low)}-#{format_value(high)}]"
      end

      private

      def format_value(value) = value.nil? ? "-" : format("%.4g", value)
    end

    # How the interval is made, and why (the rounds are few: 6 by default).
    #
    # A bootstrap of the median is poor here: from 3 values it can only ever
    # return one of those 3 values as a bound, so its "95%" interval is the
    # range of the sample, which holds the true median only 75% of the time
    # (each of the two outer values falls on the wrong side with probability
    # 1/8). An order-statistic interval has the same limit: it cannot reach
    # 95% before 6 values. So:
    #
    # - 3 to 9 values: Student's t interval on the logarithms of the values,
    #   turned back with exp. Throughput and latency figures are positive and
    #   their round-to-round noise is multiplicative (a slow neighbour takes a
    #   share, not a fixed amount), so their logarithm is close to normal; for a
    #   log-normal figure exp(mean of logs) is the median, so this is an exact
    #   95% interval for the median under that model, and a conservative one
    #   (wide) when the model is off, because t at 2 degrees of freedom is 4.30.
    #   A value <= 0 (a server that served nothing in one round) has no
    #   logarithm: then the t interval is taken on the values themselves.
    # - 10 values or more: the distribution-free interval between two order
    #   statistics, chosen from the binomial(n, 1/2) so that it holds the true
    #   median with at least `level`, whatever the shape of the noise.
    #
    # The test suite checks the coverage on simulated runs of known truth.
    module IntervalMethod
      module_function

      MINIMUM = 3
      ORDER_STATISTIC_FROM = 10

      def call(values, level:)
        values = values.map(&:to_f).sort.freeze
        median = Stats.median(values)
        n = values.size
        if n < MINIMUM
          return Interval.new(median: median, low: nil, high: nil, n: n, level: level, method: nil,
            reason: "#{n} round#{"s" unless n == 1}; an interval needs at least #{MINIMUM}").freeze
        end
        low, high, method =
          if values.first == values.last
            [values.first, values.first, "all rounds equal"]
          elsif n >= ORDER_STATISTIC_FROM
            order_statistic(values, level)
          elsif values.first.positive?
            log_t(values, level)
          else
            plain_t(values, level)
          end
        Interval.new(median: median, low: low, high: high, n: n, level: level, method: method, reason: nil).freeze
      end

      def log_t(values, level)
        low, high = t_bounds(values.map { |v| Math.log(v) }, level)
        [Math.exp(low), Math.exp(high), "t interval on log values"]
      end

      def plain_t(values, level)
        low, high = t_bounds(values, level)
        [low, high, "t interval on values"]
      end

      def t_bounds(xs, level)
        n = xs.size
        mean = xs.sum / n
        sd = Math.sqrt(xs.sum { |x| (x - mean)**2 } / (n - 1))
        half = StudentT.quantile((1.0 - level) / 2.0, n - 1) * sd / Math.sqrt(n)
        [mean - half, mean + half]
      end

      # The widest k (1-based) with P(Binomial(n, 1/2) < k) <= (1 - level) / 2:
      # then [x(k), x(n+1-k)] holds the median with probability >= level.
      def order_statistic(values, level)
        n = values.size
        tail = (1.0 - level) / 2.0
        k = 1
        k += 1 while k < n / 2 && binomial_half_cdf(n, k) <= tail
        [values[k - 1], values[n - k], "order-statistic interval"]
      end

      # P(Binomial(n, 1/2) <= k)
      def binomial_half_cdf(n, k)
        (0..k).sum { |i| binomial(n, i) } / 2.0**n
      end

      def binomial(n, k) = (1..k).reduce(1) { |acc, i| acc * (n - k + i) / i }
    end
  end
end
