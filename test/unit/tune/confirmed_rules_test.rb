# frozen_string_literal: true

require "test_helper"
require "support/confirmation_figures"

module Arena
  # Confirmed's rules one by one, on hand-made rounds and differences of
  # known truth: which rounds count, which figures a candidate carries, the
  # fallback when the rule picks none, the keep, the speed range, narrow?,
  # ahead? and the ratios' rounding.
  class TuneConfirmedRulesTest < Minitest::Test
    cover "Arena::Tune::Confirmed*"
    include ConfirmationFigures

    C = Tune::Confirmed
    # Confirmed reads a side's key (its adapter's label) and nothing else of the adapter.
    Label = Struct.new(:label)

    BASE = [1000.0, 1010, 990, 1005, 995, 1000, 1002, 998, 1003, 997].freeze
    NOISE = [1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.005, 0.995].freeze

    def by_round(values) = values.each_with_index.to_h { |v, i| [i + 1, v] }

    # A side whose goodput is BASE times level (times noise), its p99 and PSS as given (one per round, or one for all).
    def side(key, level, role: "answer", noise: NOISE, p99: 10.0, pss: 100 * 1024, failed: nil)
      rps = BASE.each_with_index.map { |x, i| x * level * noise[i] }
      Side.new(role: role, adapter: Label.new(key), installation: nil, rps: by_round(rps), failed: failed,
        p99_ms: by_round(p99.is_a?(Array) ? p99 : [p99] * BASE.size), pss_kb: by_round(pss.is_a?(Array) ? pss : [pss] * BASE.size))
    end

    # Ten rounds; speeds in ms per round number (nil: no reading).
    def result(sides, flagged: [], median_ms: 10.0, speeds: {}, stopped: "precise")
      rounds = (1..BASE.size).map do |n|
        ms = speeds[n]
        Round.new(number: n, order: sides.map(&:key), speeds: ms ? {"x" => Reading.new(cpu_ms: ms / 2.0, memory_ms: ms / 2.0)} : {})
      end
      Result.new(sides: sides, rounds: rounds, flagged: flagged, median_ms: median_ms, stopped: stopped)
    end

    def test_ahead_only_when_measured_significant_not_equivalent_and_positive
      assert_equal true, C.ahead?(paired(5.0, 2.0, 8.0))
      assert_equal false, C.ahead?(paired(5.0, 2.0, 8.0, p_value: nil)), "not measured"
      assert_equal false, C.ahead?(paired(5.0, -1.0, 11.0, significant: false)), "positive, not significant"
      assert_equal false, C.ahead?(paired(1.0, 0.5, 1.5, equivalent: true)), "significant but equivalent"
      assert_equal false, C.ahead?(paired(0.0, -0.0, 0.0)), "level"
      assert_equal false, C.ahead?(paired(-5.0, -8.0, -2.0)), "significantly behind"
    end

    def test_ratios_are_rounded_to_four_decimals
      c = C.new(gain: paired(31.04567, 24.12345, 38.98765), margin: paired(-2.5, -4.44444, -0.55555))
      assert_equal [1.3105, [1.2412, 1.3899]], c.gain_ratio
      assert_equal [0.975, [0.9556, 0.9944]], c.margin_ratio
      assert_nil C.new(gain: paired(5.0, 2.0, 8.0, p_value: nil)).gain_ratio
      assert_nil C.new(gain: nil).gain_ratio
      assert_nil C.new(margin: nil).margin_ratio
      assert_equal [true, false], [C.new(pick: side("a", 1.0)).found?, C.new(pick: nil).found?]
    end

    def test_common_rounds_and_medians
      a = Side.new(rps: {1 => 1.0, 2 => 2.0, 3 => 3.0, 5 => 5.0})
      b = Side.new(rps: {4 => 4.0, 3 => 3.0, 2 => 2.0})
      assert_equal [2, 3], C.common([a, b], [1, 2, 3, 4])
      assert_equal [1, 2, 3], C.common([a], [1, 2, 3, 4])
      assert_equal [4, 1], C.common([], [4, 1])
      assert_equal 20.0, C.median({1 => 10.0, 2 => 30.0, 3 => 20.0, 5 => 1000.0}, [1, 2, 3, 4])
      assert_equal 2.5, C.median({1 => 1.0, 2 => 4.0, 3 => 99.0}, [1, 2])
      assert_nil C.median({1 => 1.0}, [2, 3])
    end

    def test_a_candidate_carries_its_counted_rounds_and_a_figure_only_when_every_round_has_it
      s = Side.new(adapter: Label.new("x"), rps: {1 => 100.0, 2 => 110.0, 3 => 120.0, 4 => 130.0},
        p99_ms: {1 => 5.0, 2 => 6.0, 3 => 7.0, 4 => 8.0}, pss_kb: {1 => 10, 2 => 20, 3 => 30, 4 => 40})
      c = C.candidate(s, [1, 3, 4, 9])
      assert_equal ["x", [100.0, 120.0, 130.0], [1, 3, 4], [], [5.0, 7.0, 8.0], [10, 30, 40]], [c.name, c.rps, c.rounds, c.flags, c.p99, c.pss]
      no_p99 = Side.new(adapter: Label.new("y"), rps: s.rps, p99_ms: {1 => 5.0, 4 => 8.0}, pss_kb: s.pss_kb)
      c = C.candidate(no_p99, [1, 3, 4])
      assert_equal [[], [10, 30, 40]], [c.p99, c.pss], "a round without p99: no p99 at all"
      no_pss = Side.new(adapter: Label.new("z"), rps: s.rps, p99_ms: s.p99_ms, pss_kb: {1 => 10, 3 => nil, 4 => 40})
      c = C.candidate(no_pss, [1, 3, 4])
      assert_equal [[5.0, 7.0, 8.0], []], [c.p99, c.pss], "a round without PSS: no PSS at all"
      unsampled = Side.new(adapter: Label.new("u"), rps: s.rps, p99_ms: s.p99_ms, pss_kb: {1 => 10, 4 => 40})
      assert_equal [], C.candidate(unsampled, [1, 3, 4]).pss, "a round never sampled: no PSS at all"
    end

    def test_fallback_when_the_rule_picks_none
      equivalent = Verdicts::Verdict.of("equivalent", "...")
      heavy = Side.new(adapter: Label.new("heavy"), rps: {1 => 200.0, 2 => 210.0}, pss_kb: {1 => 300, 2 => 300})
      light = Side.new(adapter: Label.new("light"), rps: {1 => 100.0, 2 => 110.0}, pss_kb: {1 => 100, 2 => 120, 3 => 1})
      assert_same light, C.fallback([heavy, light], [1, 2], equivalent)
      assert_same light, C.fallback([light, heavy], [1, 2], equivalent)
      unsampled = Side.new(adapter: Label.new("unsampled"), rps: {1 => 300.0, 2 => 300.0}, pss_kb: {})
      assert_same heavy, C.fallback([unsampled, heavy], [1, 2], equivalent), "no PSS reads as the most memory"
      assert_same heavy, C.fallback([heavy, unsampled], [1, 2], equivalent)
      bare = Side.new(adapter: Label.new("bare"), rps: {1 => 50.0, 2 => 60.0}, pss_kb: {})
      assert_same unsampled, C.fallback([bare, unsampled], [1, 2], equivalent), "no PSS on either: the higher goodput"
      assert_same heavy, C.fallback([light, heavy], [1, 2], Verdicts::Verdict.of("not distinguishable", "...")), "not equivalent: the higher goodput"
      assert_same heavy, C.fallback([light, heavy], [1, 2], nil)
      assert_same heavy, C.fallback([heavy, light], [1, 2], nil)
      none = Side.new(adapter: Label.new("none"), rps: {3 => 900.0}, pss_kb: {})
      assert_same light, C.fallback([none, light], [1, 2], nil), "no goodput in the counted rounds reads as 0"
      slow = Side.new(adapter: Label.new("slow"), rps: {1 => 0.4, 2 => 0.6}, pss_kb: {})
      assert_same slow, C.fallback([none, slow], [1, 2], nil), "0.5 req/s is more than none"
    end

    def test_the_speed_range_of_the_counted_rounds
      speeds = {1 => 9.0, 2 => 10.0, 3 => 12.5, 4 => 10.0, 5 => 10.0, 6 => 10.0, 7 => 10.0, 8 => 10.0, 9 => 10.0, 10 => 20.0}
      assert_equal [0.8, 1.111], C.speed_range(result([], flagged: [10], speeds: speeds)), "round 10 (flagged) left out"
      assert_equal [0.5, 1.111], C.speed_range(result([], flagged: [], speeds: speeds))
      assert_equal [1.0, 1.0], C.speed_range(result([], speeds: {4 => 10.0}))
      # 10/11.7 = 0.85470..., 10/9.3 = 1.07526...; the first round neither.
      assert_equal [0.855, 1.075], C.speed_range(result([], speeds: {1 => 10.0, 2 => 11.7, 3 => 9.3}))
      assert_nil C.speed_range(result([], speeds: {}))
      assert_nil C.speed_range(result([], median_ms: nil, speeds: speeds))
    end

    def test_narrow_when_every_side_is_close_to_the_first
      a = side("a", 1.0, noise: [1.0] * 10)
      b = side("b", 1.0)
      c = side("c", 1.02, noise: NOISE.reverse.rotate(1))
      # The first side against each other: its interval's half-width (b's figures against the first's).
      half = ->(other, first) { Stats.paired(other.rps.values, first.rps.values).then { |d| (d.high_pct - d.low_pct) / 2.0 } }
      assert_in_delta 0.843, half.call(b, a), 0.001
      assert_in_delta 0.827, half.call(c, a), 0.001
      assert_in_delta 1.451, half.call(c, b), 0.001, "b and c apart are wider: never compared"
      assert C.narrow?(result([a, b, c]), target_pct: 1.0)
      assert C.narrow?(result([a, b, c]), target_pct: 0.85)
      refute C.narrow?(result([a, b, c]), target_pct: 0.835), "b is 0.843 wide of a"
      refute C.narrow?(result([a, c, b]), target_pct: 0.835), "every side, not only the second"
      refute C.narrow?(result([b, a, c]), target_pct: 1.0), "against b, c is 1.45 wide"
      assert C.narrow?(result([a, c]), target_pct: half.call(c, a)), "exactly the target"
      refute C.narrow?(result([a, c]), target_pct: half.call(c, a) - 1e-9)
      assert C.narrow?(result([a, c, side("gone", 1.0, noise: [1.5, 0.5] * 5, failed: "crashed")]), target_pct: 1.0), "a failed side is not compared"
      assert C.narrow?(result([a]), target_pct: 0.0)
      assert C.narrow?(result([a, side("gone", 1.0, failed: "crashed")]), target_pct: 0.0)
      assert C.narrow?(result([]), target_pct: 0.0)
      # A wild round flagged for the machine's speed is not counted.
      wild = side("wild", 1.0)
      wild.rps[10] = 3000.0
      assert C.narrow?(result([a, wild], flagged: [10]), target_pct: 1.5)
      refute C.narrow?(result([a, wild], flagged: []), target_pct: 1.5)
      # Two rounds in common: not measured, never narrow.
      two = Side.new(adapter: Label.new("two"), rps: {1 => 1000.0, 2 => 1000.0}, p99_ms: {}, pss_kb: {})
      refute C.narrow?(result([a, two]), target_pct: 100.0)
    end

    def test_nothing_alive_decides_nothing
      sides = [side("a", 1.0, failed: "crashed"), side("b", 1.0, role: "baseline", failed: "crashed")]
      c = C.decide(result(sides, flagged: [3], stopped: "time"), baseline_key: "b", band_pct: 2.0)
      assert_equal({pick: nil, other: nil, baseline: nil, margin: nil, gain: nil, verdict: nil, keep: false, rounds: 0, flagged: [3],
        speed_range: nil, rps: nil, p99_ms: nil, pss_kb: nil, band_pct: 2.0, stopped: "time", stay: nil, stay_gain: nil, counted: nil, round_s: nil}, c.to_h)
      refute c.found?
    end

    # Staying: the baseline's server at its best config, against the
    # baseline on the same rounds; the runner-up, not it, gives the margin.
    def test_the_stay_config_is_measured_against_your_config
      answer = side("iodine", 1.3)
      runner = side("unicorn", 1.1, role: "runner-up", noise: NOISE.rotate(2))
      base = side("puma t3", 1.0, role: "baseline", noise: NOISE.rotate(4))
      stay = side("puma t5", 1.08, role: "stay", noise: NOISE.rotate(6))
      c = C.decide(result([answer, runner, base, stay]), baseline_key: "puma t3", stay_key: "puma t5")
      assert_same answer, c.pick
      assert_same runner, c.other, "the runner-up before the stay config"
      assert_same stay, c.stay
      assert_in_delta 8.0, c.stay_gain.estimate_pct, 1.5
      assert_equal 10, c.stay_gain.n
      assert_in_delta 1.08, c.stay_ratio.first, 0.015
    end

    def test_your_config_may_already_be_the_best_of_its_server
      answer = side("iodine", 1.3)
      base = side("puma t3", 1.0, role: "baseline")
      c = C.decide(result([answer, base]), baseline_key: "puma t3", stay_key: "puma t3")
      assert_same base, c.stay
      assert_nil c.stay_gain, "nothing to compare it with"
      assert_nil c.stay_ratio
      c = C.decide(result([answer, base]), baseline_key: "puma t3", stay_key: "iodine")
      assert_same answer, c.stay, "the answer is the baseline's server"
      assert_in_delta 30.0, c.stay_gain.estimate_pct, 2.0
      c = C.decide(result([answer, base]), baseline_key: "puma t3")
      assert_nil c.stay, "not searched"
      dead = side("puma t5", 1.1, role: "stay", failed: "crashed")
      c = C.decide(result([answer, base, dead]), baseline_key: "puma t3", stay_key: "puma t5")
      assert_same dead, c.stay
      assert_nil c.stay_gain, "a stay config that failed has no gain"
    end

    # What MoreTime reads of the rounds: the mean seconds of those that
    # recorded it, and the pick over the other side and over a live baseline
    # that is not the pick, on the counted rounds both ran.
    def test_round_s_and_log_pairs_for_more_time
      rounds = [10.0, 20.0, nil].each_with_index.map { |sec, i| Round.new(number: i + 1, order: [], speeds: {}, seconds: sec) }
      assert_equal 15.0, C.round_s(Result.new(sides: [], rounds: rounds, flagged: [], median_ms: nil, stopped: nil))
      assert_nil C.round_s(Result.new(sides: [], rounds: rounds.last(1), flagged: [], median_ms: nil, stopped: nil))
      answer = side("answer", 1.2)
      runner = side("runner", 1.0, role: "runner-up")
      base = side("base", 0.5, role: "baseline")
      c = C.decide(result([answer, runner, base]), baseline_key: "base")
      margin, gain = c.log_pairs
      assert_equal [10, 10], [margin.n, gain.n]
      assert_in_delta Math.log(1.2), margin.mean, 0.01
      assert_in_delta Math.log(2.4), gain.mean, 0.01
      assert_equal 1, C.decide(result([answer, runner, side("base", 0.5, role: "baseline", failed: "x")]), baseline_key: "base").log_pairs.size
      assert_equal 1, C.decide(result([answer, runner]), baseline_key: "answer").log_pairs.size, "the baseline is the pick"
      c = C.decide(result([answer, runner, base], flagged: (1..8).to_a), baseline_key: "base")
      assert_equal [10, 10], c.log_pairs.map(&:n), "too few unflagged: every round counts"
    end

    def test_the_baseline_alone_is_the_answer
      base = side("base", 1.0, role: "baseline")
      gone = side("answer", 2.0, failed: "crashed")
      c = C.decide(result([gone, base]), baseline_key: "base")
      assert_same base, c.pick
      assert_equal [nil, nil, nil, true, 10], [c.other, c.margin, c.gain, c.keep, c.rounds]
      assert_equal "pick", c.verdict.word
    end

    def test_the_pick_its_figures_and_the_margin_from_the_counted_rounds
      p99 = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 90.0]
      pss = [100, 100, 200, 200, 200, 300, 300, 300, 300, 900].map { |m| m * 1024 }
      answer = side("answer", 1.1, p99: p99, pss: pss)
      runner = side("runner", 1.0, role: "runner-up", noise: NOISE.rotate(3), p99: 40.0)
      crashed = side("crashed", 3.0, role: "runner-up", failed: "crashed")
      speeds = (1..10).to_h { |n| [n, (n == 10) ? 20.0 : 10.0] }
      c = C.decide(result([crashed, runner, answer], flagged: [10], speeds: speeds, stopped: "precise"), baseline_key: nil, band_pct: 3.0)
      assert_same answer, c.pick
      assert_same runner, c.other, "the failed side is never the runner-up"
      assert_equal ["pick", 9, [10], "precise", 3.0, [1.0, 1.0]], [c.verdict.word, c.rounds, c.flagged, c.stopped, c.band_pct, c.speed_range]
      assert_equal [false, nil, nil], [c.keep, c.gain, c.baseline], "no baseline: nothing to keep"
      assert_equal 9, c.margin.n
      assert_in_delta 10.0, c.margin.estimate_pct, 1.5, "the pick against the runner-up"
      # The medians of rounds 1-9 (round 10, flagged, read 90 ms and 900 MiB).
      assert_equal 14.0, c.p99_ms
      assert_equal 200 * 1024, c.pss_kb
      assert_equal 9, c.rps.n
      assert_equal BASE.first(9).each_with_index.map { |x, i| x * 1.1 * NOISE[i] }.sort[4], c.rps.median
    end

    def test_rounds_are_those_both_ran
      answer = side("answer", 1.2)
      runner = side("runner", 1.0, role: "runner-up")
      runner.rps.delete(4)
      runner.rps.delete(7)
      c = C.decide(result([answer, runner]), baseline_key: nil)
      assert_same answer, c.pick
      assert_equal [8, 8, 10], [c.rounds, c.margin.n, c.rps.n]
    end

    def test_no_pick_by_the_rule_the_higher_median_stands
      answer = side("answer", 1.0, noise: [1.2, 0.8, 1.25, 0.75, 1.1, 0.9, 1.2, 0.8, 1.0, 1.0])
      runner = side("runner", 1.01, role: "runner-up")
      c = C.decide(result([answer, runner]), baseline_key: nil)
      assert_equal "not distinguishable", c.verdict.word
      assert_same runner, c.pick
      assert_same answer, c.other
    end

    def test_equivalent_within_the_band_the_lighter_stands_whichever_median_is_higher
      # PSS 1% apart, inside the band: the rule does not pick by memory; the fallback takes the lighter.
      pair = ->(heavy, light) { [side("answer", heavy, pss: 101 * 1024), side("runner", light, role: "runner-up", pss: 100 * 1024)] }
      [pair.call(1.0, 1.005), pair.call(1.005, 1.0)].each do |sides|
        c = C.decide(result(sides), baseline_key: nil)
        assert_equal ["equivalent", true], [c.verdict.word, c.margin.equivalent?]
        assert_same sides.last, c.pick, "the lighter, whichever median is higher"
      end
      # A band of 0.1%: 0.5% apart is no longer equivalent.
      c = C.decide(result(pair.call(1.0, 1.005)), baseline_key: nil, band_pct: 0.1)
      refute_equal "equivalent", c.verdict.word
      assert_equal 0.1, c.band_pct
    end

    def test_keep_follows_the_gain_over_the_baseline
      answer = side("answer", 1.3)
      base = side("base", 1.0, role: "baseline", noise: NOISE.rotate(2))
      c = C.decide(result([answer, base]), baseline_key: "base")
      assert_same answer, c.pick
      assert_same base, c.baseline
      assert_nil c.other
      assert_equal false, c.keep
      assert_in_delta 1.3, c.gain_ratio[0], 0.03
      level = side("level", 1.0, role: "baseline", noise: NOISE.map { |x| x * 1.001 })
      c = C.decide(result([side("answer", 1.0), level]), baseline_key: "level")
      assert_equal [true, true], [c.keep, c.gain.equivalent?]
      failed = side("base", 1.0, role: "baseline", failed: "crashed")
      c = C.decide(result([answer, failed]), baseline_key: "base")
      assert_equal [false, nil], [c.keep, c.gain]
      assert_same failed, c.baseline
      c = C.decide(result([answer, base]), baseline_key: "elsewhere")
      assert_equal [false, nil, nil], [c.keep, c.gain, c.baseline]
    end

    def test_the_baseline_that_is_the_pick_is_kept_without_a_gain
      answer = side("answer", 1.3)
      runner = side("runner", 1.0, role: "runner-up")
      c = C.decide(result([answer, runner]), baseline_key: "answer")
      assert_same answer, c.pick
      assert_equal [true, nil], [c.keep, c.gain]
      assert c.frozen?
    end

    def test_the_rule_picks_the_lighter_though_its_median_is_lower
      heavy = side("heavy", 1.0, pss: 200 * 1024)
      light = side("light", 0.995, role: "runner-up", pss: 100 * 1024)
      c = C.decide(result([heavy, light]), baseline_key: nil)
      assert_equal "pick", c.verdict.word
      assert_match(/memory/, c.verdict.reason)
      assert_same light, c.pick, "the rule's pick, not the higher median"
      assert_same heavy, c.other
    end

    def test_the_band_reaches_the_margin
      a = side("a", 1.06)
      b = side("b", 1.0, role: "runner-up", noise: NOISE.rotate(3))
      c = C.decide(result([a, b]), baseline_key: nil, band_pct: 10.0)
      assert_equal "equivalent within ±10%: a is +6.0% against b (95% interval +4.8% to +7.2%; paired t on log ratios, 10 rounds, p=9e-07)",
        c.margin.reason
      assert_equal [true, "equivalent"], [c.margin.equivalent?, c.verdict.word]
      c = C.decide(result([a, b]), baseline_key: nil)
      assert_equal [false, "pick"], [c.margin.equivalent?, c.verdict.word]
    end

    def test_a_round_the_pick_missed_is_not_counted
      answer = side("answer", 1.2)
      answer.rps.delete(4)
      runner = side("runner", 1.0, role: "runner-up", noise: NOISE.rotate(3))
      c = C.decide(result([answer, runner]), baseline_key: nil)
      assert_same answer, c.pick
      assert_equal [9, 9, 9], [c.rounds, c.margin.n, c.rps.n]
      assert_equal "answer is +20.1% against runner (95% interval +18.7% to +21.6%; paired t on log ratios, 9 rounds, p=6.01e-10 < 0.05)",
        c.margin.reason, "the pick named against the runner-up"
    end

    def test_a_baseline_role_read_from_elsewhere_is_still_the_baseline
      answer = side("answer", 1.0)
      base = side("base", 1.3, role: +"baseline")
      c = C.decide(result([answer, base]), baseline_key: "base")
      assert_same answer, c.pick, "the baseline is never a contender"
      assert_same base, c.baseline
      assert_equal true, c.keep
    end
  end
end
