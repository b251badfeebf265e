# frozen_string_literal: true

require_relative "difference"
require_relative "interval"
require_relative "paired"
require_relative "steady_state"

module Arena
  # The statistics behind every figure Arena reports and every choice it makes
  # from figures: pure functions of numbers (no clock, no process, no I/O), so
  # the suite checks them on simulated data whose truth it knows.
  #
  #   Stats.interval([9800, 10100, 9950])         # median with its 95% interval
  #   Stats.difference(puma_rounds, falcon_rounds) # Welch's t on log figures at 0.05
  #   Stats.paired(puma_rounds, falcon_rounds)     # same rounds: paired t on log ratios
  #   Stats.steady_state(slices, band_pct: 5)      # index where warm-up ended, or nil
  module Stats
    module_function

    # Median with its interval at `level` (see IntervalMethod for the method
    # and why). Under 3 values: `measured?` false and a `reason`.
    def interval(values, level: 0.95) = IntervalMethod.call(values, level: level)

    # b against a, tested at `level` (see DifferenceMethod). `names` go into
    # the reason, so it can name both sides ("not distinguishable here: ...").
    # With `band_pct`, an interval inside ±band_pct is `equivalent?`.
    def difference(a, b, level: 0.05, names: %w[a b], band_pct: nil)
      DifferenceMethod.call(a, b, level: level, names: names, band_pct: band_pct)
    end

    # b against a where round i of each ran adjacent in time (see
    # PairedMethod): the machine's shared drift cancels. `equivalent?` when
    # the whole interval lies within ±band_pct.
    def paired(a, b, level: 0.05, names: %w[a b], band_pct: 3.0)
      PairedMethod.call(a, b, level: level, names: names, band_pct: band_pct)
    end

    # b against a, paired on the rounds both were measured in (`rounds_a` and
    # `rounds_b` give each figure's round; 3 in common or more), else Welch's
    # t on each side's figures (equivalence judged on its interval the same
    # way), its reason saying the two were not paired.
    def by_rounds(a, b, rounds_a: nil, rounds_b: nil, level: 0.05, names: %w[a b], band_pct: 3.0)
      PairedMethod.by_rounds(a, b, rounds_a: rounds_a, rounds_b: rounds_b, level: level, names: names, band_pct: band_pct)
    end

    # Index of the slice where warm-up ended, or nil (see SteadyStateMethod).
    def steady_state(slices, band_pct:, window: 5, level: 0.05)
      SteadyStateMethod.call(slices, band_pct: band_pct, window: window, level: level)
    end
  end
end
