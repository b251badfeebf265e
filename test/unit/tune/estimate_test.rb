# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

# How long a tune needs, said before it starts (lib/arena/tune/estimate.rb),
# on values: the tune of issue 21's note (Puma in an envelope on the Rails
# PG fixture, --max-time 90) stopped after 3 of its 8 candidates unsaid.
class TuneEstimateTest < Minitest::Test
  E = Arena::Tune::Estimate

  def test_a_look_is_a_boot_and_five_levels_of_load
    assert_equal 17.5, E.per_candidate_s(warmup: 0.5, duration: 2.0, rails: false) # 5 x 2.5 + 3 + 2
    assert_equal 29.5, E.per_candidate_s(warmup: 0.5, duration: 2.0, rails: true)
  end

  def test_the_least_search_is_the_start_the_prediction_a_step_each_way_and_the_unbounded_winner
    least = E.least([["puma", 2, true], ["unicorn", 1, false]], per_candidate_s: 32.0)
    assert_equal [["puma", 7, 224], ["unicorn", 4, 128]], least.map { |s| [s.server, s.candidates, s.seconds] }
    puma = Arena::Tune::Space.for(Arena::Servers::Puma, machine: Arena::Plan::Machine.new(cores: 2).freeze)
    assert_equal 2, puma.dimensions.size, "puma searches workers and threads"
  end

  # Every candidate after a server's start may duel the best in paired
  # rounds: the least search counts them, at their most.
  def test_the_least_search_counts_a_duel_for_each_candidate_after_the_start
    assert_equal 8 * 2 * 13.2, E.duel_s(duration: 12.2), "8 paired rounds of two loads and a second each"
    least = E.least([["pitchfork", 1, false]], per_candidate_s: 90.0, duel_s: 211.2)
    assert_equal [["pitchfork", 4, 994]], least.map { |s| [s.server, s.candidates, s.seconds] } # 4 x 90 + 3 x 211.2
    assert_equal 3 * 90.0 + (994 - 90), E.whole_s(looks: 3, searched: least, per_candidate_s: 90.0, head_to_head_s: 0.0, confirmation_s: 0.0)
    assert_equal "tune: 500 s for the search fits about 2: searches stop early (--max-time 1020 fits all)",
      E.lines(least, budget_s: 500.0, per_candidate_s: 90.0, given: false).last, "a candidate with its duel: 994 / 4 s"
  end

  def test_the_head_to_head_keeps_its_rounds_from_the_searches
    assert_equal 0.0, E.head_to_head_s(1, duration: 2.0), "one finalist: no head to head"
    assert_equal 90.0, E.head_to_head_s(6, duration: 2.0) # 6 finalists x 5 rounds x 3 s
  end

  def test_a_budget_under_the_least_search_is_said_with_what_fits
    least = E.least([["puma", 2, true], ["falcon", 1, false]], per_candidate_s: 32.0)
    assert_equal ["tune: about 32 s a candidate; the least search of every server: 11 candidates, 352 s",
      "tune: 90 s for the search (--max-time) fits about 2: searches stop early (--max-time 360 fits all)"],
      E.lines(least, budget_s: 90.0, per_candidate_s: 32.0, given: true)
    assert_equal "tune: 90 s for the search fits about 2: searches stop early (--max-time 360 fits all)",
      E.lines(least, budget_s: 90.0, per_candidate_s: 32.0, given: false).last
    assert_equal "tune: 600 s for the search: it fits", E.lines(least, budget_s: 600.0, per_candidate_s: 32.0, given: false).last
  end

  # A slow app's loads hold LOAD_REQUESTS (a figure no longer moves in
  # steps of 2.5%), up to LONGEST_LOAD_S; a fast app's keep the default.
  def test_a_load_is_sized_by_count_on_a_slow_app
    assert_equal 10.0, E.duration_for(20.0, default: 2.0), "200 requests at 20 req/s"
    assert_equal 2.0, E.duration_for(1500.0, default: 2.0)
    assert_equal 20.0, E.duration_for(2.0, default: 2.0), "at most 20 s"
    assert_equal 2.0, E.duration_for(nil, default: 2.0)
    assert_equal 30.0, E.duration_for(2.0, default: 30.0), "a longer default stands"
  end

  # A look at a slow app: its measured boot, and open levels as long as a p99's 120 requests take.
  def test_a_look_counts_the_apps_own_boot_and_level_length
    assert_equal 2.5 + 4 * 7.5 + 6.0 + 2.0, E.per_candidate_s(warmup: 0.5, duration: 2.0, boot_s: 6.0, level_s: 7.0)
    assert_equal 12.5 + 4 * 12.5 + 6.0 + 2.0, E.per_candidate_s(warmup: 0.5, duration: 12.0, boot_s: 6.0, level_s: 7.0), "a level is at least a load"
  end

  def test_the_whole_tune_is_every_look_the_leaders_search_the_head_to_head_and_the_rounds
    searched = E.least([["puma", 2, false], ["unicorn", 1, false]], per_candidate_s: 10.0)
    assert_equal 12 * 10.0 + (5 + 3) * 10.0 + 60.0 + 300.0,
      E.whole_s(looks: 12, searched: searched, per_candidate_s: 10.0, head_to_head_s: 60.0, confirmation_s: 300.0)
  end

  def test_a_budget_under_the_whole_tune_says_how_long_it_needs_before_starting
    assert_empty E.short_lines(590.0, budget_s: 600.0)
    lines = E.short_lines(1390.0, budget_s: 600.0)
    assert_equal ["tune: this app needs about 24 min for every server's start, the leaders' and your",
      "  server's search and 8 confirmation rounds (--max-time 1560); in 10.0 min some are cut short"], lines,
      "the --max-time said holds the need 10% slower: 1390 s x 1.1 = 1529 s, to the minute up"
    assert lines.all? { |l| l.size <= 100 }
  end
end
