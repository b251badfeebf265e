# frozen_string_literal: true

require_relative "../../test_helper"
require "arena/stats"

# The statistics on simulated data whose truth the test knows: noise drawn from
# a seeded generator, so every run of the suite sees the same draws.
class StatsTest < Minitest::Test
  Stats = Arena::Stats

  def normal(rng) = Math.sqrt(-2 * Math.log(1 - rng.rand)) * Math.cos(2 * Math::PI * rng.rand)

  # Round figures around a true median, with multiplicative noise of sd `sigma`
  # (log-normal: the shape of throughput noise) or additive noise (normal).
  def rounds(rng, n, truth:, sigma:, shape: :lognormal)
    Array.new(n) do
      (shape == :lognormal) ? truth * Math.exp(sigma * normal(rng)) : truth * (1 + sigma * normal(rng))
    end
  end

  def coverage(n, shape:, runs: 1500, seed: 1)
    rng = Random.new(seed)
    hits = runs.times.count do
      iv = Stats.interval(rounds(rng, n, truth: 1000.0, sigma: 0.05, shape: shape))
      1000.0.between?(iv.low, iv.high)
    end
    hits.fdiv(runs)
  end

  def test_the_interval_holds_the_true_median_at_least_90_percent_of_the_time_from_3_rounds
    [3, 5].each do |n|
      cover = coverage(n, shape: :lognormal)
      assert_operator cover, :>=, 0.92, "log-normal noise, #{n} rounds: #{cover}"
      assert_operator cover, :<=, 0.98, "not so wide it says nothing, #{n} rounds: #{cover}"
    end
    assert_operator coverage(3, shape: :normal), :>=, 0.90
  end

  def test_the_distribution_free_interval_from_10_rounds_holds_too
    assert_operator coverage(12, shape: :normal, runs: 800), :>=, 0.93
    iv = Stats.interval((1..12).to_a)
    assert_equal "order-statistic interval", iv.method
    assert_equal [3.0, 10.0], [iv.low, iv.high]
  end

  def test_under_3_rounds_there_is_no_interval_and_the_reason_says_so
    iv = Stats.interval([100, 110])
    refute iv.measured?
    assert_nil iv.half_width_pct
    assert_equal 105.0, iv.median
    assert_match(/2 rounds; an interval needs at least 3/, iv.reason)
    assert_match(/not measured/, iv.to_s)
  end

  def test_a_known_interval_and_its_half_width
    iv = Stats.interval([100, 100, 100])
    assert_equal [100.0, 100.0, 100.0], [iv.low, iv.median, iv.high]
    assert_equal 0.0, iv.half_width_pct
    iv = Stats.interval([90.0, 100.0, 110.0])
    assert_equal 100.0, iv.median
    assert_equal "t interval on log values", iv.method
    # log values' sd is about 0.1003: half-width 4.303 * 0.1003 / sqrt(3) = 0.249 in log
    assert_in_delta 100.0 * Math.exp(-0.249) * Math.exp(Math.log(990_000) / 3 - Math.log(100)), iv.low, 1.0
    assert_operator iv.half_width_pct, :>, 20
    assert Stats.interval([0, 5, 10]).measured?, "a zero round falls back to the t on values"
    assert_equal "t interval on values", Stats.interval([0, 5, 10]).method
    assert iv.frozen?
  end

  def test_the_tests_false_positive_rate_is_near_its_level
    rng = Random.new(7)
    runs = 2000
    hits = runs.times.count do
      Stats.difference(rounds(rng, 3, truth: 1000.0, sigma: 0.05), rounds(rng, 3, truth: 1000.0, sigma: 0.08)).significant?
    end
    rate = hits.fdiv(runs)
    assert_operator rate, :<=, 0.07, "equal servers called different #{rate}"
    assert_operator rate, :>=, 0.02, "a test that never fires cannot have a 5% level: #{rate}"
  end

  def test_a_real_gap_is_found_from_3_rounds_a_side
    rng = Random.new(11)
    found = 500.times.count do
      Stats.difference(rounds(rng, 3, truth: 1000.0, sigma: 0.03), rounds(rng, 3, truth: 1200.0, sigma: 0.03)).significant?
    end
    assert_operator found, :>=, 450
    d = Stats.difference([1000, 1010, 990], [1200, 1212, 1188], names: %w[puma falcon])
    assert d.significant?
    assert_in_delta 20.0, d.estimate_pct, 0.1
    assert_operator d.low_pct, :<, 20.0
    assert_operator d.high_pct, :>, 20.0
    assert_match(/\Afalcon is \+20.0% against puma .*Welch's t on log figures, p=.* < 0.05\)\z/, d.reason)
  end

  def test_not_distinguishable_names_both_and_a_short_side_is_not_measured
    d = Stats.difference([1000, 1100, 900], [1010, 1150, 920], names: %w[puma falcon])
    refute d.significant?
    assert_match(/\Anot distinguishable here: falcon is \+\d\.\d% against puma/, d.reason)
    short = Stats.difference([1000, 1010], [2000, 2020, 1990], names: %w[puma falcon])
    refute short.significant?
    refute short.measured?
    assert_match(/puma has 2 round\(s\), falcon 3; the test needs 3 each/, short.reason)
  end

  def test_steady_state_on_a_flat_noisy_series_starts_at_once
    rng = Random.new(3)
    flat = Array.new(20) { 1000 * (1 + 0.01 * normal(rng)) }
    assert_equal 0, Stats.steady_state(flat, band_pct: 5)
  end

  def test_steady_state_after_a_warm_up_ramp_is_found_at_its_end
    rng = Random.new(5)
    # A cold process: 30% of its speed at first, approaching full speed with a
    # time constant of 3 slices (within 1% of it after about 14 slices).
    series = Array.new(30) { |i| 1000 * (1 - 0.7 * Math.exp(-i / 3.0)) * (1 + 0.01 * normal(rng)) }
    index = Stats.steady_state(series, band_pct: 3)
    refute_nil index
    assert_operator index, :>=, 7, "the ramp is still above 3% before slice 10"
    assert_operator index, :<=, 16
  end

  def test_steady_state_on_a_climb_that_never_stops_is_nil
    rng = Random.new(9)
    climbing = Array.new(30) { |i| (1000 + 15 * i) * (1 + 0.005 * normal(rng)) }
    assert_nil Stats.steady_state(climbing, band_pct: 5)
    assert_nil Stats.steady_state([1, 1, 1], band_pct: 5), "fewer slices than a window"
    assert_nil Stats.steady_state([0, 0, 0, 0, 0], band_pct: 5), "nothing served is not steady"
  end

  def test_the_t_distribution_matches_its_tables
    assert_in_delta 4.303, Arena::Stats::StudentT.quantile(0.025, 2), 0.001
    assert_in_delta 2.776, Arena::Stats::StudentT.quantile(0.025, 4), 0.001
    assert_in_delta 0.05, Arena::Stats::StudentT.two_sided_p(2.776, 4), 0.0005
  end
end
