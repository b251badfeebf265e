# frozen_string_literal: true

module Arena
  module Run
    # The order of each round. A round runs every planned config x workload x
    # scenario once; its order is shuffled so that a slow minute on the machine
    # (a neighbour's job, a backup) falls on a different config each round,
    # and shows as spread in that round's figures instead of as a difference
    # between servers. The order comes from the run's seed and the round's
    # number alone, so a run is re-done in the same order with `--seed`, and a
    # round added later (--precision) does not change the earlier ones.
    #
    # Rounds come in blocks of as many rounds as keys: a block's order is
    # shuffled, and each of its rounds turns it by one place, so in every
    # block each key runs once in each place (first after the pause between
    # rounds, last before it). A fresh shuffle per round left that to luck: a
    # tune of 4 configs ran its 3 rounds in one order, the same config first
    # every time.
    module Rounds
      # The keys (any values) in round `round`'s order (rounds count from 1;
      # round 0 is the warm-up's, a shuffle of its own). A block's first round
      # is the shuffle of its own number, as every round's was before blocks.
      def self.order(keys, round:, seed:)
        return shuffled(keys, seed, round) if round < 1
        first = round - (round - 1) % [keys.size, 1].max
        shuffled(keys, seed, first).rotate(round - first)
      end

      def self.shuffled(keys, seed, round) = keys.shuffle(random: Random.new(seed * 1_000_003 + round))
    end
  end
end
