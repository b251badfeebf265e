# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "timeout"

# The rate sweep's levels from the closed maximum, the unloaded latency and
# the time left: a fast endpoint keeps every level at 200 requests; a 1 s
# endpoint fits its budget with fewer levels and fewer requests, and no two
# levels share a rate.
class RatePlanTest < Minitest::Test
  cover "Arena::Verdicts::RatePlan*"
  cover "Arena::Verdicts::Rate*"

  Plan = Arena::Verdicts::RatePlan

  # Bounded: a plan's loops, broken, must fail here rather than hang (mutant
  # counts a mutation that never ends as alive).
  def plan(max, unloaded_s, budget_s, base = 5.0)
    Timeout.timeout(5) { Plan.call(closed_max_rps: max, unloaded_s: unloaded_s, budget_s: budget_s, base_duration_s: base) }
  end

  def test_a_fast_endpoint_keeps_every_level_at_full_samples
    p = plan(14_000, 0.001, 295)
    assert_equal %w[10% 25% 50% 75% 90% 100% 110% 120%], p.levels.map(&:label)
    assert_equal 200, p.min_requests
    assert_equal [1400.0, 3500.0, 7000.0], p.levels.first(3).map(&:rate)
    assert_equal [5.0], p.levels.map(&:duration_s).uniq
  end

  def test_a_1s_endpoint_with_2_workers_fits_its_budget_with_distinct_fractional_rates
    [295, 60, 40].each do |budget|
      p = plan(2.0, 1.0, budget, 1.0)
      assert p.fits?(budget), "#{budget} s: planned #{p.seconds}"
      rates = p.levels.map(&:rate)
      assert_equal rates.uniq, rates
      assert_operator p.levels.size, :>=, 3
    end
    p = plan(2.0, 1.0, 295, 1.0)
    assert_equal [1.0, 1.8, 2.0, 2.4], p.levels.map(&:rate)
    assert_operator p.min_requests, :>=, Plan::P99_REQUESTS, "with 5 minutes, enough for a p99"
    assert_equal [0.1, 0.25, 0.75, 1.1], p.dropped
    assert_equal [1.0, 2.0, 2.4], plan(2.0, 1.0, 40, 1.0).levels.map(&:rate), "at last 50% and the two around the maximum"
    short = plan(2.0, 1.0, 20, 1.0)
    assert_equal 10, short.min_requests, "the floor"
    refute short.fits?(20), "what does not fit at the floor is cut short by the deadline"
  end

  # Issue 35: `--max-time 120` on a 1 s endpoint with 2 workers (closed
  # maximum 2 req/s) planned 90%, 100% and 120% only, and the sweep answered
  # "none sustained" from the 50% it had dropped. Whatever the budget, a
  # level at 50% of the maximum or lower stays.
  def test_a_level_well_below_the_maximum_is_never_dropped
    [120, 115, 60, 20, 5].each do |budget|
      p = plan(2.0, 1.0, budget, 1.0)
      low = p.levels.map(&:fraction).min
      assert_operator low, :<=, 0.5, "#{budget} s kept #{p.levels.map(&:label)}"
      refute_includes p.dropped, 0.5
    end
  end

  def test_a_40_rps_endpoint_keeps_all_levels_with_longer_low_levels
    p = plan(40, 0.05, 295)
    assert_equal 8, p.levels.size
    assert_equal 200, p.min_requests
    assert_equal 50.0, p.levels.first.duration_s, "200 requests at 4 req/s"
    slower = plan(4, 0.25, 295)
    assert_equal [1.0, 2.0, 3.0], slower.levels.first(3).map(&:rate), "10% (500 s for 200 requests) is given up first"
    assert_equal [0.1], slower.dropped
  end

  # A plan's seconds are its levels' durations plus, per level, the settle
  # and drain overhead (2.5 unloaded latencies and 0.5 s); all of it frozen.
  def test_a_plan_s_seconds_are_its_levels_and_their_overhead
    p = plan(14_000, 0.001, 295)
    assert_in_delta 8 * (5.0 + 2.5 * 0.001 + 0.5), p.seconds, 1e-9
    assert_in_delta 2.5 * 0.2 + 0.5, Plan.overhead_s(0.2), 1e-12
    assert p.frozen? && p.levels.frozen? && p.dropped.frozen? && p.levels.all?(&:frozen?)
  end

  def most(*args) = Timeout.timeout(5) { Plan.most_requests(*args) }

  # The most requests a level can have within the budget, at its exact edge:
  # one level at 10 req/s, no overhead, lasts ceil(requests / 10) s.
  def test_the_most_requests_that_fit_at_the_budget_s_edge
    assert_equal 150, most([1.0], 10.0, 0.0, 15.0, 0.0), "15 s hold 150 requests exactly"
    assert_equal 140, most([1.0], 10.0, 0.0, 14.9, 0.0), "14.9 s: 140"
    assert_equal 10, most([1.0], 10.0, 0.0, 1.0, 0.0), "the floor fits exactly"
    assert_nil most([1.0], 10.0, 0.0, 0.99, 0.0), "not even the floor"
    assert_equal Plan::MIN_REQUESTS, most([1.0], 10.0, 0.0, 1_000.0, 0.0), "at most MIN_REQUESTS"
  end

  def test_rates_keep_three_significant_digits_and_never_collapse
    assert_equal 0.2, Plan.rate_at(2.0, 0.1)
    assert_equal 12_300.0, Plan.rate_at(12_345, 1.0)
    assert_equal 0.00123, Plan.rate_at(0.001234, 1.0)
    tiny = plan(0.0004, 100, 295)
    assert_equal tiny.levels.map(&:rate).uniq, tiny.levels.map(&:rate)
  end

  def test_a_sweep_cut_short_says_what_it_measured
    x = {"planned_levels" => %w[10% 25% 50% 75% 90% 100%], "measured_levels" => %w[10% 25%], "knee_rps" => 0.5,
         "closed_max_rps" => 2.0, "slo_ms" => 3000}
    assert_equal "incomplete: measured 10% and 25% of 6 planned levels", Arena::Verdicts::Rate.incomplete(x)
    assert_nil Arena::Verdicts::Rate.incomplete(x.merge("measured_levels" => x["planned_levels"]))
    m = Arena::Results::Measurement.new(server: "unicorn", workload: "sleep", scenario: "rate", variant: "curve", kind: "summary", extra: x)
    finding = Arena::Report::Side.of(Arena::Scenarios::Rate).finding(m)
    assert_match(/incomplete: measured 10% and 25% of 6 planned levels; knee at or above 0.5 req\/s/, finding)
  end
end
