# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# A round long enough for its requests at the rate the warm-up reached.
class RoundSizeTest < Minitest::Test
  cover "Arena::Scenarios::RoundSize*"

  def size(rates, duration: 0.3, requests: 2000) = Arena::Scenarios::RoundSize.duration(duration: duration, requests: requests, rates: rates)

  def test_a_fast_app_keeps_its_duration_and_a_slow_one_gets_enough_requests
    assert_equal 0.3, size([[9000, 10_000, 10_000, 10_000]])
    assert_in_delta 2.0, size([[200, 900, 1000, 1000, 1000]]), 1e-9, "the settled slices, not the cold first one"
    assert_in_delta 2.222, size([[900, 900, 900]]), 1e-3, "whole-number rates divide as rates"
    assert_equal 5.0, size([[50, 50, 50]]), "at most 5 s"
    assert_equal 8.0, size([[50, 50, 50]], duration: 8.0), "never shorter than -d"
  end

  def warm(rates, warmup: 0.2, connections: 32) = Arena::Scenarios::RoundSize.warmup(warmup: warmup, connections: connections, rates: rates)

  def test_the_warm_up_covers_two_turns_of_the_closed_loop
    assert_in_delta 3.2, warm([[5, 20, 20, 20]]), 1e-9, "32 connections at 20 req/s: 1.6 s in the system, twice"
    assert_equal 0.2, warm([[5000, 5000, 5000]]), "a fast server keeps -w"
    assert_equal 5.0, warm([[2, 2, 2]]), "at most 5 s"
    assert_equal 6.0, warm([[2, 2, 2]], warmup: 6.0), "never shorter than -w"
    assert_in_delta 3.2, warm([[40, 40, 40], [20, 20, 20]]), 1e-9, "the slowest variant"
    assert_equal 0.2, warm([[0, 0]]), "nothing served"
    assert_equal 0.2, warm([[20, 20, 20]], connections: 0), "no connections: an open model"
  end

  def test_a_turn_known_before_the_load_counts_where_the_warm_up_read_no_rate
    assert_in_delta 3.2, Arena::Scenarios::RoundSize.warmup(warmup: 0.2, connections: 32, rates: [[0, 0, 0]], turn_s: 1.6), 1e-9
    assert_in_delta 3.2, Arena::Scenarios::RoundSize.warmup(warmup: 0.2, connections: 32, rates: [[40, 40, 40]], turn_s: 1.6), 1e-9, "the longer of the two"
    assert_in_delta 1.6, Arena::Scenarios::RoundSize.warmup(warmup: 0.2, connections: 32, rates: [[40, 40, 40]], turn_s: 0.1), 1e-9
    assert_equal 5.0, Arena::Scenarios::RoundSize.warmup(warmup: 0.2, connections: 32, rates: [], turn_s: 9.0)
  end

  def test_a_turn_is_each_slots_share_of_the_connections_at_the_service_time
    turn = ->(c, us, slots) { Arena::Scenarios::RoundSize.turn(connections: c, service_us: us, slots: slots) }
    assert_in_delta 1.6, turn.call(32, 50_000, 1), 1e-9, "thin: one slot, 32 connections, 50 ms"
    assert_in_delta 0.2, turn.call(32, 50_000, 8), 1e-9
    assert_in_delta 0.05, turn.call(4, 50_000, 8), 1e-9, "more slots than connections: one service time"
    assert_equal 0.0, turn.call(32, 50_000, nil), "slots not declared (fibers)"
    assert_equal 0.0, turn.call(32, nil, 4), "no baseline"
    assert_equal 0.0, turn.call(0, 50_000, 4)
  end

  def test_the_slowest_variant_sizes_the_round_and_nothing_measured_leaves_it
    assert_in_delta 1.0, size([[4000, 4000, 4000], [2000, 2000, 2000]]), 1e-9
    assert_in_delta 1.0, size([[2000, 2000, 2000], [4000, 4000, 4000], [3000, 3000, 3000]]), 1e-9, "the slowest, wherever it is"
    assert_equal 0.3, size([]), "no warm-up"
    assert_equal 0.3, size([[], [0, 0, 0]]), "nothing served"
    assert_equal 0.3, size([[100, 100, 100]], requests: 0), "0: -d as given"
    assert_equal 0.3, size([[100, 100, 100]], requests: nil), "none asked"
    assert_in_delta 2.0, size([[0.5, 0.5, 0.5]], requests: 1), 1e-9, "one request at half a request a second"
  end

  def test_settled_is_the_median_of_the_last_three_slices
    assert_in_delta 2.0, size([[100, 1000, 400, 2000]]), 1e-9, "median of 1000, 400, 2000"
    assert_in_delta 1.6, warm([[20, 40, 10, 40]]), 1e-9, "two turns of 32 connections at the median of 40, 10, 40 (not of the last four or two)"
  end

  def test_connections_not_known
    assert_equal 0.2, warm([[20, 20, 20]], connections: nil)
    assert_equal 0.0, Arena::Scenarios::RoundSize.turn(connections: nil, service_us: 50_000, slots: 4)
  end
end
