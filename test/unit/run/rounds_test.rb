# frozen_string_literal: true

require_relative "../../test_helper"
require "arena/run/rounds"

module Arena
  # The rounds' order (Run::Rounds): from the seed and the round alone, in
  # blocks where each key runs once in each place, never one order twice in a row.
  class RunRoundsTest < Minitest::Test
    cover "Arena::Run::Rounds*"

    KEYS = %w[answer runner-up baseline stay].freeze

    def orders(seed, rounds = 1..12) = rounds.map { |r| Run::Rounds.order(KEYS, round: r, seed: seed) }

    def test_each_key_runs_once_in_each_place_in_every_block
      [7, 2_058_095_084, 291_972_369_914_617_597_851_651_603_821_025_719_956].each do |seed|
        orders(seed).each_slice(KEYS.size) do |block|
          block.transpose.each { |place| assert_equal KEYS.sort, place.sort, "seed #{seed}: #{block}" }
        end
        orders(seed).each_cons(2) { |a, b| refute_equal a, b, "seed #{seed}: the same order twice in a row" }
      end
    end

    def test_the_order_comes_from_the_seed_and_the_round_alone
      assert_equal orders(7), orders(7)
      refute_equal orders(7), orders(8)
      assert_equal orders(7, 5..12), orders(7).drop(4), "a round added later changes no earlier one"
      refute_equal orders(7, 1..4), orders(7, 5..8), "each block shuffled afresh"
      old = ->(round) { KEYS.shuffle(random: Random.new(7 * 1_000_003 + round)) }
      assert_equal old.call(0), Run::Rounds.order(KEYS, round: 0, seed: 7), "the warm-up's order: the shuffle it always was"
      assert_equal old.call(-1), Run::Rounds.order(KEYS, round: -1, seed: 7)
      assert_equal [old.call(1), old.call(5), old.call(9)], [1, 5, 9].map { |r| Run::Rounds.order(KEYS, round: r, seed: 7) },
        "a block's first round is the shuffle its number always had: a seed's round 1 is unchanged"
      assert_equal old.call(5).rotate(2), Run::Rounds.order(KEYS, round: 7, seed: 7), "then turned a place a round"
      assert_equal [["a"]] * 3, (1..3).map { |r| Run::Rounds.order(["a"], round: r, seed: 7) }
      assert_equal [], Run::Rounds.order([], round: 1, seed: 7)
    end
  end
end
