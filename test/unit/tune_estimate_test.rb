# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "arena/tune"

# How long a tune needs, said before it starts, and the default budget that
# holds it (lib/arena/tune/estimate.rb), on values: the tune of issue 21's
# note (Puma in an envelope on the Rails PG fixture, --max-time 90) stopped
# after 3 of its 8 candidates.
class TuneEstimateTest < Minitest::Test
  E = Arena::Tune::Estimate

  def test_a_candidate_is_a_boot_and_six_levels_of_load
    assert_equal 20.0, E.per_candidate_s(warmup: 0.5, duration: 2.0, rails: false) # 6 x 2.5 + 3 + 2
    assert_equal 32.0, E.per_candidate_s(warmup: 0.5, duration: 2.0, rails: true)
  end

  def test_the_least_search_is_the_start_three_times_a_step_each_way_and_the_unbounded_winner
    least = E.least([["puma", 2, true], ["unicorn", 1, false]], per_candidate_s: 32.0)
    assert_equal [["puma", 8, 256], ["unicorn", 5, 160]], least.map { |s| [s.server, s.candidates, s.seconds] }
    puma = Arena::Tune::Space.for(Arena::Servers::Puma, machine: Arena::Machine.new(cores: 2).freeze)
    assert_equal 2, puma.dimensions.size, "puma searches workers and threads"
  end

  def test_the_default_budget_holds_twice_the_least_search_and_never_less_than_600_s
    assert_equal 600.0, E.default_budget(E.least([["puma", 2, true]], per_candidate_s: 32.0)) # 2 x 256 < 600
    three = E.least([["puma", 2, true], ["unicorn", 1, true], ["falcon", 1, true]], per_candidate_s: 32.0) # 20 candidates, 640 s
    assert_equal 1320.0, E.default_budget(three) # 1,280 s in whole minutes
  end

  def test_a_budget_under_the_least_search_is_said_with_what_fits
    least = E.least([["puma", 2, true]], per_candidate_s: 32.0)
    assert_equal "tune: a candidate takes about 32 s here; the least search is puma 8 candidates, about 256 s; " \
      "--max-time 90 fits about 2: the search stops with the best so far (give --max-time 540 for a full search)",
      E.line(least, budget_s: 90.0, per_candidate_s: 32.0, given: true)
    assert_equal "tune: a candidate takes about 32 s here; the least search is puma 8 candidates, about 256 s; budget 600 s " \
      "(default: twice that, at least 600 s)", E.line(least, budget_s: 600.0, per_candidate_s: 32.0, given: false)
  end
end
