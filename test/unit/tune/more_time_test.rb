# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # What more rounds buy, on pairs of known spread: the interval's ± as
  # Stats.paired gives it, the fewest rounds that reach ±5%, the time they
  # take, and the sentence the answer prints.
  class TuneMoreTimeTest < Minitest::Test
    cover "Arena::Tune::MoreTime*"

    M = Tune::MoreTime

    def pair(mean, sd, n) = M::Pair.new(mean: mean, sd: sd, n: n)

    def test_the_half_width_is_the_paired_intervals
      a = [100.0, 104, 97, 101, 99, 103, 96, 100]
      b = [110.0, 112, 108, 115, 104, 113, 107, 111]
      d = Stats.paired(a, b)
      p = M.pair(a, b)
      assert_equal 8, p.n
      assert_in_delta (d.high_pct - d.low_pct) / 2.0, M.half_pct(mean: p.mean, sd: p.sd, n: p.n), 1e-9
      assert_nil M.pair([1.0, 2.0], [1.0, 2.0]), "under 3 rounds, no spread"
    end

    def test_the_fewest_rounds_that_reach_five_percent
      # sd 0.1: t(16)·0.1/√17 = 0.0514 (±5.14%), t(17)·0.1/√18 = 0.0497 (±4.98%)
      assert_equal 18, M.rounds_for(pair(0.0, 0.1, 8), target_pct: 5.0)
      assert_equal 8, M.rounds_for(pair(0.0, 0.01, 8), target_pct: 5.0), "already there"
      assert_nil M.rounds_for(pair(0.0, 2.0, 8), target_pct: 5.0), "past the most rounds"
    end

    def test_the_widest_pair_decides_and_the_time_has_one_round_to_spare
      need = M.call(pairs: [pair(0.0, 0.02, 8), pair(0.0, 0.1, 8), nil], seconds_per_round: 60.0)
      assert_in_delta 8.37, need.half_pct, 0.01
      assert_equal [8, 10], [need.rounds, need.more_rounds]
      assert_equal 660, need.seconds, "11 rounds of 60 s"
      assert_equal 11, need.minutes
      # 10 more rounds and one spare of 45 s = 495 s: rounded up to 9 minutes
      assert_equal 540, M.call(pairs: [pair(0.0, 0.1, 8)], seconds_per_round: 45.0).seconds
    end

    def test_nothing_to_buy_within_five_percent
      assert_nil M.call(pairs: [pair(0.0, 0.02, 8)], seconds_per_round: 60.0)
      assert_nil M.call(pairs: [nil], seconds_per_round: 60.0)
    end

    def test_the_sentence
      need = M.call(pairs: [pair(0.1, 0.14, 8)], seconds_per_round: 40.0)
      assert_equal "±13% from 8 rounds; about 22 more minutes (`arena tune --resume /tmp/t --max-time 1320`) " \
        "would give ±5% at this machine's spread", M.sentence(need, dir: "/tmp/t")
      assert_nil M.sentence(nil, dir: "/tmp/t")
      no_time = M.call(pairs: [pair(0.0, 0.1, 8)], seconds_per_round: nil)
      assert_equal "±8.37% from 8 rounds; 10 more rounds would give ±5% at this machine's spread", M.sentence(no_time, dir: "/tmp/t")
      far = M.call(pairs: [pair(0.0, 2.0, 8)], seconds_per_round: 40.0)
      assert_match(/; more than 400 rounds would be needed for ±5% at this machine's spread\z/, M.sentence(far, dir: "/tmp/t"))
      one = M.sentence(M::Need.new(half_pct: 5.5, rounds: 20, more_rounds: 1, seconds: 60, target_pct: 5.0), dir: "d")
      assert_match(/about 1 more minute \(/, one)
    end
  end
end
