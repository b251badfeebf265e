# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  class TailCountTest < Minitest::Test
    cover "Arena::Stats::TailCount*"

    # P(X <= k) for X ~ Binomial(n, p), summed in logs (exact enough at any n here).
    def cdf(n, k, p = 0.01)
      (0..k).sum { |i| Math.exp(Math.lgamma(n + 1).first - Math.lgamma(i + 1).first - Math.lgamma(n - i + 1).first + i * Math.log(p) + (n - i) * Math.log(1 - p)) }
    end

    # The allowance is the binomial's 95% quantile: the least count whose
    # cumulative probability reaches 0.95.
    def test_the_allowance_is_the_binomials_95_percent_quantile
      [1, 20, 81, 100, 119, 500, 2000, 4999].each do |n|
        k = Stats::TailCount.allowed(n)
        assert_operator cdf(n, k), :>=, 0.95, "n=#{n}: #{k} allowed"
        assert_operator cdf(n, k - 1), :<, 0.95, "n=#{n}: #{k - 1} would do" if k.positive?
      end
    end

    def test_few_responses_allow_few_over
      assert_equal 0, Stats::TailCount.allowed(0)
      assert_equal 1, Stats::TailCount.allowed(20)
      assert_equal 3, Stats::TailCount.allowed(119)
    end

    # Past 50 expected the normal approximation stands in, within one of the exact quantile.
    def test_many_responses_use_the_normal_approximation_within_one
      [5000, 10_000, 100_000].each do |n|
        k = Stats::TailCount.allowed(n)
        exact = (k - 3..k + 3).find { |j| cdf(n, j) >= 0.95 }
        assert_in_delta exact, k, 1, "n=#{n}"
      end
    end
  end
end
