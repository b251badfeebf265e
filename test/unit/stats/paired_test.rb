# frozen_string_literal: true

require_relative "../../test_helper"
require "arena/stats"

# The paired test on synthetic rounds of known truth. Each round multiplies
# both sides by the same drift (the machine's speed that minute) and each side
# by its own noise; the paired test must cancel the first and carry the second.
#
# These simulations run thousands of tests each: they prove the method, and
# are left out of mutant's runs (no `cover`); StatsPairedExactTest below
# pins the arithmetic on figures worked by hand, fast enough for mutant.
class StatsPairedTest < Minitest::Test
  Stats = Arena::Stats

  def normal(rng) = Math.sqrt(-2 * Math.log(1 - rng.rand)) * Math.cos(2 * Math::PI * rng.rand)

  # `rounds` pairs: a = 1000 × drift × own noise, b = a's truth × ratio × the
  # same drift × its own noise. Drift is uniform in 1 ± drift (0.15: 0.85–1.15).
  def pairs(rng, rounds:, ratio:, drift:, own:)
    a = []
    b = []
    rounds.times do
      shared = 1 + drift * (2 * rng.rand - 1)
      a << 1000.0 * shared * Math.exp(own * normal(rng))
      b << 1000.0 * ratio * shared * Math.exp(own * normal(rng))
    end
    [a, b]
  end

  def test_a_5_percent_lead_under_shared_drift_is_found_where_welch_is_blind
    rng = Random.new(21)
    a, b = pairs(rng, rounds: 6, ratio: 1.05, drift: 0.2, own: 0.01)
    d = Stats.paired(a, b, names: %w[puma falcon])
    assert d.significant?, d.reason
    assert_operator d.p_value, :<, 0.01
    assert_in_delta 5.0, d.estimate_pct, 1.5
    assert_operator d.low_pct, :>, 0.0
    assert_equal 6, d.n
    refute d.equivalent?, "a 5% lead is not within ±3%"
    assert_equal "paired t on log ratios", d.method
    assert_match(/\Afalcon is \+\d\.\d% against puma \(95% interval \+\d\.\d% to \+\d\.\d%; paired t on log ratios, 6 rounds, p=.* < 0.05\)\z/, d.reason)
    refute Stats.difference(a, b).significant?, "the independent test carries the drift (the blind spot this test removes)"
  end

  def test_an_exact_ratio_every_round_is_significant_with_a_point_interval
    drift = [0.8, 1.2, 0.95, 1.1, 0.85, 1.0]
    a = drift.map { |f| 1000 * f }
    d = Stats.paired(a, a.map { |v| v * 1.05 })
    assert d.significant?
    assert_equal 0.0, d.p_value
    assert_in_delta 5.0, d.low_pct, 1e-9
    assert_in_delta 5.0, d.high_pct, 1e-9
    same = Stats.paired(a, a)
    refute same.significant?
    assert_equal 1.0, same.p_value
    assert same.equivalent?
  end

  # Power: B 10% faster, 15% shared drift, 6 rounds. The issue's table
  # (paired column): 100%, 99%, 75%, 25% at own noise 0, 3, 5, 10%.
  def test_the_power_table
    expected = {0.0 => 0.98..1.0, 0.03 => 0.93..1.0, 0.05 => 0.60..0.90, 0.10 => 0.15..0.40}
    rng = Random.new(5)
    expected.each do |own, range|
      trials = 300
      found = trials.times.count do
        a, b = pairs(rng, rounds: 6, ratio: 1.10, drift: 0.15, own: own)
        d = Stats.paired(a, b)
        d.significant? && d.estimate_pct.positive?
      end
      rate = found.fdiv(trials)
      assert_includes range, rate, "own noise #{own}: detected #{rate}"
    end
  end

  # Identical servers, 6 rounds, 15% drift: called different at about the level.
  def test_an_equivalent_pair_is_called_different_at_most_about_5_percent_of_the_time
    rng = Random.new(9)
    trials = 2000
    hits = trials.times.count do
      a, b = pairs(rng, rounds: 6, ratio: 1.0, drift: 0.15, own: 0.05)
      Stats.paired(a, b).significant?
    end
    rate = hits.fdiv(trials)
    assert_operator rate, :<=, 0.065, "identical configs called different #{rate}"
    assert_operator rate, :>=, 0.03, "a test that never fires has no 5% level: #{rate}"
  end

  def test_equivalence_is_the_whole_interval_inside_the_band
    rng = Random.new(3)
    equivalent = 400.times.count do
      a, b = pairs(rng, rounds: 6, ratio: 1.0, drift: 0.15, own: 0.01)
      Stats.paired(a, b).equivalent?
    end
    assert_operator equivalent, :>=, 380, "1% own noise over 6 rounds: the interval is well inside ±3%"
    d = Stats.paired([1000, 1000, 1000, 1000], [1010, 1005, 1012, 1008], names: %w[puma falcon])
    assert d.equivalent?
    assert d.significant?, "a real 0.9% is still real; equivalent says it does not matter"
    assert_match(/\Aequivalent within ±3%: falcon is \+0\.9% against puma \(95% interval/, d.reason)
    refute Stats.paired([1000, 1000, 1000, 1000], [1010, 1005, 1012, 1008], band_pct: 0.5).equivalent?
    wide = Stats.paired([1000, 1000, 1000], [1000, 1100, 900])
    refute wide.equivalent?, "not distinguishable is not equivalent: #{wide.reason}"
    assert_match(/\Anot distinguishable here: b is /, wide.reason)
  end

  def test_too_few_rounds_a_nothing_round_and_unequal_sides
    short = Stats.paired([1000, 1010], [2000, 2020], names: %w[puma falcon])
    refute short.measured?
    refute short.significant?
    refute short.equivalent?
    assert_equal 2, short.n
    assert_match(/not distinguishable here: 2 paired round\(s\) of puma and falcon; the test needs 3/, short.reason)
    zero = Stats.paired([1000, 0, 1000], [1000, 1000, 1000])
    refute zero.measured?
    assert_match(/a round served nothing/, zero.reason)
    error = assert_raises(ArgumentError) { Stats.paired([1, 2, 3], [1, 2]) }
    assert_match(/same rounds/, error.message)
  end

  def test_the_welch_difference_keeps_its_members
    d = Stats.difference([1000, 1010, 990], [1200, 1212, 1188])
    assert_equal 3, d.n
    refute d.equivalent?
  end
end

class StatsPairedExactTest < Minitest::Test
  cover "Arena::Stats::PairedMethod*"
  cover "Arena::Stats::DifferenceMethod.build"

  # Worked by hand: log ratios 0.029559, 0.044452, 0.021979, 0.009479; mean
  # 0.026367 (+2.672%); sd 0.014625, se 0.0073125, t = 3.606 on 3 degrees of
  # freedom; t(0.975, 3) = 3.1824, so the interval is 0.026367 ± 0.023272.
  def test_a_known_pair_in_full
    d = Arena::Stats.paired([1000, 1100, 900, 1050], [1030, 1150, 920, 1060], names: %w[puma falcon])
    assert_in_delta 2.6718, d.estimate_pct, 0.001
    assert_in_delta 0.3099, d.low_pct, 0.001
    assert_in_delta 5.0892, d.high_pct, 0.001
    assert_in_delta 0.0366, d.p_value, 0.0005
    assert_equal [4, 0.05, "paired t on log ratios", true, false], [d.n, d.level, d.method, d.significant?, d.equivalent?]
    assert_equal "falcon is +2.7% against puma (95% interval +0.3% to +5.1%; paired t on log ratios, 4 rounds, p=0.0366 < 0.05)", d.reason
    assert d.frozen?
    wider = Arena::Stats.paired([1000, 1100, 900, 1050], [1030, 1150, 920, 1060], level: 0.01)
    refute wider.significant?, "p=0.0366 is not below 0.01"
    assert_operator wider.low_pct, :<, 0.0
    assert_equal "not distinguishable here: b is +2.7% against a (99% interval -1.6% to +7.2%; paired t on log ratios, 4 rounds, p=0.0366 >= 0.01)", wider.reason
    assert Arena::Stats.paired([1000, 1100, 900, 1050], [1030, 1150, 920, 1060], band_pct: 5.1).equivalent?
    refute Arena::Stats.paired([1000, 1100, 900, 1050], [1030, 1150, 920, 1060], band_pct: 5.0).equivalent?
    assert_equal "equivalent within ±5.1%: b is +2.7% against a (95% interval +0.3% to +5.1%; paired t on log ratios, 4 rounds, p=0.0366)",
      Arena::Stats.paired([1000, 1100, 900, 1050], [1030, 1150, 920, 1060], band_pct: 5.1).reason
  end

  def test_the_edges
    down = Arena::Stats.paired([1030, 1150, 920, 1060], [1000, 1100, 900, 1050])
    assert_in_delta(-2.6023, down.estimate_pct, 0.001)
    assert_in_delta(-4.8427, down.low_pct, 0.001)
    three = Arena::Stats.paired([1000, 1000, 1000], [1100, 1000, 1200])
    assert_equal 3, three.n
    assert three.measured?
    assert_equal "not distinguishable here: 2 paired round(s) of a and b; the test needs 3", Arena::Stats.paired([1, 2], [1, 2]).reason
    negative = Arena::Stats.paired([1000, -1, 1000], [1000, 1000, 1000])
    refute negative.measured?
    assert_equal [3, false, false], [negative.n, negative.significant?, negative.equivalent?]
    assert_nil negative.estimate_pct
    assert_equal "paired t on log ratios", negative.method
    error = assert_raises(ArgumentError) { Arena::Stats.paired([1, 2, 3, 4], [1, 2, 3]) }
    assert_equal "a paired test needs both sides from the same rounds (4 and 3 figures)", error.message
    short = Arena::Stats.paired([1, 2], [1, 2], level: 0.01)
    assert_equal [0.01, 2], [short.level, short.n]
    zero_b = Arena::Stats.paired([1000, 1000, 1000], [1000, 0, 1000], level: 0.01)
    assert_equal "not distinguishable here: a round served nothing (a figure <= 0 has no logarithm)", zero_b.reason
    assert_equal [0.01, 3], [zero_b.level, zero_b.n]
  end

  # Every round the same ratio, to the last bit (powers of two): no spread,
  # so no t. The interval is the point itself; p is 0 for a ratio other than
  # 1 and 1 for none.
  def test_a_ratio_without_spread
    double = Arena::Stats.paired([1000, 2000, 4000], [2000, 4000, 8000], names: %w[puma falcon])
    assert_equal [100.0, 100.0, 100.0, 0.0, true, false], [double.estimate_pct, double.low_pct, double.high_pct, double.p_value,
      double.significant?, double.equivalent?]
    assert_equal "falcon is +100.0% against puma (95% interval +100.0% to +100.0%; paired t on log ratios, 3 rounds, p=0 < 0.05)", double.reason
    same = Arena::Stats.paired([1000, 2000, 4000], [1000, 2000, 4000])
    assert_equal [0.0, 0.0, 0.0, 1.0, false, true], [same.estimate_pct, same.low_pct, same.high_pct, same.p_value, same.significant?, same.equivalent?]
  end

  # A round without a figure (nil) is a round that served nothing, on either side: not a crash.
  def test_a_round_without_a_figure
    [[[1000, nil, 1000], [1000, 1000, 1000]], [[1000, 1000, 1000], [1000, nil, 1000]]].each do |a, b|
      d = Arena::Stats.paired(a, b)
      refute d.measured?
      assert_equal "not distinguishable here: a round served nothing (a figure <= 0 has no logarithm)", d.reason
      assert d.frozen?
    end
  end
end

class StatsByRoundsTest < Minitest::Test
  cover "Arena::Stats::PairedMethod*"

  Stats = Arena::Stats

  def test_figures_pair_on_the_rounds_both_sides_have
    a = [1000, 800, 1200, 900, 5]
    b = [1050, 840, 1260, 945]
    d = Stats.by_rounds(a, b, rounds_a: [1, 2, 3, 4, 5], rounds_b: [1, 2, 3, 4], names: %w[puma falcon])
    assert_equal "paired t on log ratios", d.method
    assert_equal 4, d.n, "round 5 has no partner"
    assert_in_delta 5.0, d.estimate_pct, 1e-9
    rerun = Stats.by_rounds([1000, 500, 800, 1200], [1050, 840, 1260], rounds_a: [1, 2, 2, 3], rounds_b: [1, 2, 3])
    assert_in_delta 5.0, rerun.estimate_pct, 1e-9, "a round's re-run (its later figure) is the one paired"
  end

  def test_sides_from_different_rounds_fall_back_to_welch_and_say_so
    d = Stats.by_rounds([1000, 1010, 990], [1200, 1212, 1188], rounds_a: [1, 2, 3], rounds_b: [4, 5, 6])
    assert_equal "Welch's t on log figures", d.method
    assert d.significant?
    assert d.reason.end_with?("(unpaired: not measured in the same rounds)"), d.reason
    assert d.frozen?
    assert_equal "Welch's t on log figures", Stats.by_rounds([1, 2, 3], [1, 2, 3]).method, "no rounds given"
    assert_equal "Welch's t on log figures", Stats.by_rounds([1, 2, 3], [1, 2, 3], rounds_a: [1, 2], rounds_b: [1, 2, 3]).method,
      "rounds that do not match the figures pair nothing"
  end

  # The names, the level and the band reach the test by either path.
  def test_names_level_and_band_reach_either_test
    a = [1000, 1100, 900, 1050]
    b = [1030, 1150, 920, 1060]
    rounds = [1, 2, 3, 4]
    paired = Stats.by_rounds(a, b, rounds_a: rounds, rounds_b: rounds, names: %w[puma falcon], band_pct: 5.1)
    assert_equal "equivalent within ±5.1%: falcon is +2.7% against puma (95% interval +0.3% to +5.1%; paired t on log ratios, 4 rounds, p=0.0366)", paired.reason
    unpaired = Stats.by_rounds([1000, 1010, 990], [1010, 1020, 1000], rounds_a: [1, 2, 3], rounds_b: [4, 5, 6], names: %w[puma falcon], band_pct: 5.0)
    assert unpaired.equivalent?, unpaired.reason
    assert_match(/\Aequivalent within ±5%: falcon is \+1\.0% against puma \(95% interval .*; Welch's t on log figures, .*\) \(unpaired: not measured in the same rounds\)\z/, unpaired.reason)
    refute Stats.by_rounds([1000, 1010, 990], [1010, 1020, 1000], rounds_a: [1, 2, 3], rounds_b: [4, 5, 6], band_pct: 0.5).equivalent?
  end

  # Too few figures for Welch either: its own words, without the unpaired note (nothing was tested).
  def test_too_few_for_either_test
    d = Stats.by_rounds([1000, 1010], [1200, 1212], rounds_a: [1, 2], rounds_b: [3, 4], names: %w[puma falcon])
    refute d.measured?
    assert_equal Stats.difference([1000, 1010], [1200, 1212], names: %w[puma falcon], band_pct: 3.0).reason, d.reason
    refute d.reason.include?("unpaired"), d.reason
  end

  # Rounds that are missing or do not match their figures, on either side, pair nothing.
  def test_rounds_that_cannot_pair
    a = [1000, 1100, 900, 1050]
    b = [1030, 1150, 920, 1060]
    [[[1, 2, 3, 4], nil], [nil, [1, 2, 3, 4]], [[1, 2, 3], [1, 2, 3, 4]], [[1, 2, 3, 4], [1, 2, 3]],
      [[1, 2, 3, 4, 5], [1, 2, 3, 4]], [[1, 2, 3, 4], [1, 2, 3, 4, 5]]].each do |rounds_a, rounds_b|
      d = Stats.by_rounds(a, b, rounds_a: rounds_a, rounds_b: rounds_b)
      assert_equal "Welch's t on log figures", d.method, "#{rounds_a.inspect} and #{rounds_b.inspect}"
    end
  end
end
