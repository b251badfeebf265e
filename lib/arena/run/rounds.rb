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
    module Rounds
      module_function

      # The keys (any values) in round `round`'s order (rounds count from 1).
      def order(keys, round:, seed:) = keys.shuffle(random: Random.new(seed * 1_000_003 + round))
    end
  end
end
