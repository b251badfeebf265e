# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The figures SoakAnalysis computes around Verdicts::Soak, on made-up samples
# whose answers are known by construction: the whole soak's slope and R², the
# last third's slopes and growth, each process's slope, the latency slices,
# and what it hands the verdict. Values only: no process, no clock.
class SoakAnalysisTest < Minitest::Test
  cover "Arena::Scenarios::SoakAnalysis*"

  Analysis = Arena::Scenarios::SoakAnalysis
  Results = Arena::Results

  def sample(t, procs:, pss:, uss: pss, processes: nil)
    Results::MemorySample.new(t: t, procs: procs, pss_kb: pss, rss_kb: pss, uss_kb: uss, processes: processes).freeze
  end

  def measurement(samples, timeline: nil)
    load = timeline && Results::LoadFigures.new(timeline: timeline.freeze).freeze
    Results::Measurement.new(server: "puma", workload: "leak", scenario: "soak", variant: "soak", load: load,
      probes: Results::Memory.new(samples: samples.freeze).freeze, extra: {}).freeze
  end

  def point(t, good: 1, p50: 1000, p99: 2000) = Results::TimelinePoint.new(t: t.to_f, good: good, p50_us: p50, p99_us: p99).freeze

  def proc_kb(pid, kb) = {"pid" => pid, "pss_kb" => kb}

  # 61 samples, one each half second from t = 10 s (the fit and the window
  # start at the first sample, not at 0): window 30 s, last third from 30 s
  # (21 samples, the one at exactly 30 s included).
  # - tree PSS: 100 KiB/s (5.859 MiB/min) with ±250 KiB alternating, even
  #   about every centre, so the slope stays exactly 100 KiB/s in the whole run
  #   and in the last third; R² = 0.92539 (least squares in rationals).
  # - tree USS: 150 KiB/s exactly (8.789 MiB/min); over the last third's 10 s
  #   that is 1,500 KiB on a mean of 23,750: +6.3%.
  # - pids: 100 (+1 KiB a sample), 101 (+50), 102 gone after 17 s (+20),
  #   103 from 18 s (+10), 104 seen once at the end (no slope); at 17.5 s
  #   only two processes (102 gone, 103 not yet).
  def soak_samples
    (0..60).map do |i|
      t = 10 + i * 0.5
      pids = [proc_kb(100, 10_000 + i), proc_kb(101, 30_000 + 50 * i)]
      pids << proc_kb(102, 25_000 + 20 * i) if i < 15
      pids << proc_kb(103, 20_000 + 10 * (i - 16)) if i > 15
      pids << proc_kb(104, 5_000) if i == 60
      noise = ((i - 30).abs.even? ? 250 : -250)
      sample(t, procs: pids.size, pss: 60_000 + 50 * i + noise, uss: 20_000 + 75 * i, processes: pids)
    end
  end

  # The engine's seconds in 5 s slices (a sixth of the 30 s window):
  # - 0-4: p50s unsorted, one missing (median of 200, 300, 400, 500: the upper
  #   middle, 400); no p99 at all (not timed);
  # - 5-9: no p50 at all; p99s with a gap (worst 1,200);
  # - 10-14: p99 0 in every second (not timed);
  # - 15-19, 20-24: worst 2,400 and 3,500;
  # - 25-26: two seconds (the upper middle of 250, 260 is 260), worst 4,100.
  def soak_timeline
    p50s = [500, 300, 200, nil, 400] + [nil] * 5 + [100, 110, 120, 130, 140] + [150] * 5 + [210, 220, 230, 240, 250] + [260, 250]
    p99s = [nil] * 5 + [900, nil, 1200, 800, 1000] + [0] * 5 + [2000, 2100, 2200, 2300, 2400] + [3500, 3000, 3100, 3200, 3300] + [4000, 4100]
    (0..26).map { |t| point(t, good: 10 + t, p50: p50s[t], p99: p99s[t]) }
  end

  def test_the_whole_record_key_for_key
    x = Analysis.call(measurement(soak_samples, timeline: soak_timeline), rate: 200, closed_max: 1234.56)
    processes = [
      {"pid" => 100, "pss_first_kb" => 10_000, "pss_last_kb" => 10_060, "slope_mib_per_min" => 0.117, "seen_s" => [10.0, 40.0]},
      {"pid" => 101, "pss_first_kb" => 30_000, "pss_last_kb" => 33_000, "slope_mib_per_min" => 5.859, "seen_s" => [10.0, 40.0]},
      {"pid" => 102, "pss_first_kb" => 25_000, "pss_last_kb" => 25_280, "slope_mib_per_min" => 2.344, "seen_s" => [10.0, 17.0]},
      {"pid" => 103, "pss_first_kb" => 20_000, "pss_last_kb" => 20_440, "slope_mib_per_min" => 1.172, "seen_s" => [18.0, 40.0]},
      {"pid" => 104, "pss_first_kb" => 5_000, "pss_last_kb" => 5_000, "slope_mib_per_min" => nil, "seen_s" => [40.0, 40.0]}
    ]
    slices = [
      {"from_s" => 0, "good" => 60, "p50_us" => 400, "p99_us" => nil},
      {"from_s" => 5, "good" => 85, "p50_us" => nil, "p99_us" => 1200},
      {"from_s" => 10, "good" => 110, "p50_us" => 120, "p99_us" => 0},
      {"from_s" => 15, "good" => 135, "p50_us" => 150, "p99_us" => 2400},
      {"from_s" => 20, "good" => 160, "p50_us" => 230, "p99_us" => 3500},
      {"from_s" => 25, "good" => 71, "p50_us" => 260, "p99_us" => 4100}
    ]
    expected = {
      "target_rps" => 200, "closed_max_rps" => 1234.6, "soak_s" => 30.0, "pss_first_kb" => 60_250, "pss_last_kb" => 63_250,
      "slope_mib_per_min" => 5.859, "r2" => 0.925, "last_third_mib_per_min" => 5.859, "last_third_uss_mib_per_min" => 8.789,
      "last_third_growth_pct" => 6.3, "verdict" => "growing",
      "verdict_reason" => "+8.79 MiB/min, above the 0.00 MiB/min this soak's scatter could make alone", "floor_mib_per_min" => 0.0,
      "died_at_s" => nil, "procs_start" => 3, "procs_min" => 2, "processes" => processes,
      "slice_s" => 5, "latency_slices" => slices, "latency_drift" => {"first_p99_us" => 1200, "last_p99_us" => 4100}
    }
    expected.each { |key, value| assert_equal [key, value], [key, x[key]] } # names the figure that differs
    assert_equal expected, x
  end

  # What Verdicts::Soak judges is the last third's USS, [t, kb] for each sample
  # from 2/3 of the window on: here USS warms up steeply for the first two
  # thirds and is flat with GC's sawtooth after, while PSS keeps rising (a
  # neighbour's shared pages): judged on anything else it would be growing.
  def test_the_verdict_is_handed_the_last_third_of_uss
    samples = (0..90).map do |i|
      t = 5 + i * 0.5
      uss = (i < 60) ? 10_000 + 200 * i : 22_000 + 300 * ((i - 75).abs % 4)
      sample(t, procs: 2, pss: 40_000 + 100 * i, uss: uss)
    end
    tail = samples.select { |s| s.t >= 5 + 45 * 2 / 3.0 }
    assert_equal 31, tail.size, "from 35 s, the sample at 35 s included"
    judged = Arena::Verdicts::Soak.call(tail.map { |s| [s.t, s.uss_kb] })
    x = Analysis.call(measurement(samples), rate: 50, closed_max: 80.0)
    assert_equal "plateaued", x["verdict"]
    assert_equal judged.verdict.reason, x["verdict_reason"]
    assert_equal judged.floor_mib_per_min, x["floor_mib_per_min"]
    assert_operator x["last_third_mib_per_min"], :>, 5, "the PSS rose through the last third too"
    assert_equal 0.0, x["last_third_uss_mib_per_min"], "a sawtooth even about the last third's middle"
    assert_equal 80.0, x["closed_max_rps"]
  end

  # The third before the judged one goes with it (Verdicts::Soak's before:):
  # a last third that ramps up to no higher than the middle third already
  # held is a cycle, not growth; the same ramp above it is growing.
  def test_the_verdict_is_handed_the_middle_third_too
    ramp = ->(peak) {
      (0..90).map do |i|
        t = 5 + i * 0.5
        uss = if i >= 60 then 20_000 + 150 * (i - 60)
        elsif i >= 30 then (i == 40) ? peak : 20_000
        else 10_000
        end
        sample(t, procs: 2, pss: 40_000, uss: uss)
      end
    }
    cycle = Analysis.call(measurement(ramp.call(30_000)), rate: 50, closed_max: 80.0)
    assert_equal "plateaued", cycle["verdict"]
    assert_match(/climbed no higher than the 29\.3 MiB the third before it held/, cycle["verdict_reason"])
    assert_equal "growing", Analysis.call(measurement(ramp.call(24_000)), rate: 50, closed_max: 80.0)["verdict"]
  end

  # A tree that lost every process: the fit stops at the last live sample,
  # the verdict says when (to a tenth of a second), with no reason or floor
  # words of a live soak; the fewest processes seen is 0.
  def test_a_tree_that_died_is_fitted_up_to_its_death
    samples = (0..60).map do |i|
      alive = i <= 40
      sample(i * 0.5 + 0.03, procs: alive ? 2 : 0, pss: alive ? 40_000 + 10 * i : 0)
    end
    x = Analysis.call(measurement(samples), rate: 3, closed_max: nil)
    assert_equal "died at 20.5 s", x["verdict"]
    assert_nil x["verdict_reason"]
    assert_in_delta 20.53, x["died_at_s"], 1e-9
    assert_equal [2, 0, 40_400], [x["procs_start"], x["procs_min"], x["pss_last_kb"]]
    assert_equal 1.172, x["slope_mib_per_min"], "20 KiB/s over the live samples only"
  end

  # Under two live samples nothing is fitted: a tree dead from the start or
  # after one sample "died at once"; a soak with a single sample (never in a
  # soak of a second or more) is too short to judge, not dead.
  def test_under_two_live_samples
    dead = sample(0.0, procs: 0, pss: 0)
    assert_equal({"target_rps" => 3, "verdict" => "died at once", "died_at_s" => 0.0}, Analysis.call(measurement([dead]), rate: 3, closed_max: 9.0))
    one = [sample(0.0, procs: 2, pss: 100), sample(0.5, procs: 0, pss: 0), sample(1.0, procs: 0, pss: 0)]
    assert_equal({"target_rps" => 3, "verdict" => "died at once", "died_at_s" => 0.5}, Analysis.call(measurement(one), rate: 3, closed_max: 9.0))
    assert_equal({"target_rps" => 4, "verdict" => "too short to judge", "died_at_s" => nil},
      Analysis.call(measurement([sample(0.0, procs: 2, pss: 100)]), rate: 4, closed_max: 9.0))
    assert_equal({"target_rps" => 4, "verdict" => "too short to judge", "died_at_s" => nil}, Analysis.call(measurement([]), rate: 4, closed_max: 9.0))
  end

  # Two samples: a whole-run slope, but the last third holds one sample:
  # no last-third slope or growth. Two samples in the same instant: no
  # slope or R² at all, and latency in 1 s slices.
  def test_too_few_samples_for_a_fit_leave_its_figures_empty
    x = Analysis.call(measurement([sample(0.0, procs: 1, pss: 1024), sample(60.0, procs: 1, pss: 2048)]), rate: 1, closed_max: nil)
    assert_equal [1.0, 1.0], [x["slope_mib_per_min"], x["r2"]]
    assert_equal [nil, nil, nil], x.values_at("last_third_mib_per_min", "last_third_uss_mib_per_min", "last_third_growth_pct")
    assert_equal "too short to judge", x["verdict"]
    same = [sample(3.0, procs: 1, pss: 1024), sample(3.0, procs: 1, pss: 2048)]
    x = Analysis.call(measurement(same, timeline: [point(0), point(1)]), rate: 1, closed_max: nil)
    assert_equal [nil, nil, 0.0], x.values_at("slope_mib_per_min", "r2", "soak_s")
    assert_equal 1, x["slice_s"]
  end

  # A tree whose USS reads 0 (a kernel without smaps_rollup's Private lines)
  # grows 0%, not NaN.
  def test_growth_of_a_tree_without_uss_is_zero
    samples = (0..30).map { |i| sample(i.to_f, procs: 1, pss: 1000 + i, uss: 0) }
    assert_equal 0.0, Analysis.call(measurement(samples), rate: 1, closed_max: nil)["last_third_growth_pct"]
  end

  # Samples written without per-process figures have no process rows.
  def test_samples_without_per_process_figures_have_no_process_rows
    samples = (0..30).map { |i| sample(i.to_f, procs: 1, pss: 1000 + i) }
    assert_equal [], Analysis.call(measurement(samples), rate: 1, closed_max: nil)["processes"]
  end

  # A minute's slices from a 180 s window on (exactly 180 s included), a
  # sixth of it below (179 s: 30 s), 1 s at the least (4 s: a sixth is 0.67).
  def test_latency_slices_are_a_minute_or_a_sixth_of_the_window
    slice = lambda do |window|
      samples = [sample(2.0, procs: 1, pss: 10), sample(2.0 + window, procs: 1, pss: 10)]
      Analysis.call(measurement(samples, timeline: [point(0)]), rate: 1, closed_max: nil)["slice_s"]
    end
    assert_equal [1, 30, 60, 60, 60], [4.0, 179.0, 180.0, 181.0, 300.0].map(&slice)
  end

  # Slices follow time whatever order the timeline's seconds come in (a
  # merged timeline need not be sorted).
  def test_latency_slices_are_in_time_order
    samples = (0..12).map { |i| sample(i.to_f, procs: 1, pss: 10) }
    x = Analysis.call(measurement(samples, timeline: [point(5, p99: 900), point(1, p99: 700)]), rate: 1, closed_max: nil)
    assert_equal [0, 4], x["latency_slices"].map { |s| s["from_s"] }
    assert_equal({"first_p99_us" => 700, "last_p99_us" => 900}, x["latency_drift"])
  end

  # The drift is the first and last timed slices' worst p99, when there are
  # two; one timed slice has no drift; no timeline (or an empty one), no
  # latency figures at all.
  def test_latency_drift_needs_two_timed_slices
    samples = (0..12).map { |i| sample(i.to_f, procs: 1, pss: 10) } # window 12 s: 2 s slices
    drift = ->(timeline) { Analysis.call(measurement(samples, timeline: timeline), rate: 1, closed_max: nil)["latency_drift"] }
    assert_equal({"first_p99_us" => 700, "last_p99_us" => 900}, drift.call([point(0, p99: 700), point(2, p99: 900)]))
    assert_nil drift.call([point(0, p99: 700), point(2, p99: nil), point(4, p99: 0)])
    [nil, []].each do |timeline|
      x = Analysis.call(measurement(samples, timeline: timeline), rate: 1, closed_max: nil)
      assert_empty x.keys & %w[slice_s latency_slices latency_drift], timeline.inspect
    end
  end

  # Three rounds of a soak are one answer: the word they agree on, or
  # "unsettled" with each word's count (issue 35's soak printed a line per round).
  def test_a_soak_over_rounds_is_one_verdict
    soak = lambda do |verdict, slope|
      Results::Measurement.new(server: "puma", workload: "leak", scenario: "soak", variant: "soak", repeat: 1,
        extra: {"verdict" => verdict, "slope_mib_per_min" => slope, "soak_s" => 20.3}).freeze
    end
    grown = [soak.call("growing", 4534.88), soak.call("growing", 4210.5), soak.call("growing", 4600.1)]
    assert_equal [["puma", "leak"]], grown.map { |m| Arena::Scenarios::Soak.round_key(m) }.uniq
    assert_equal "puma leak soak over 3 rounds: growing (growing in 3 of 3), PSS +4210.50 to +4600.10 MiB/min (a 20.3 s soak: " \
      "a fresh heap also grows this early; 120 s or more, 300 by default, tells a leak from warm-up)", Arena::Report::Side.of(Arena::Scenarios::Soak).rounds_finding(grown)
    mixed = [soak.call("growing", 8.4), soak.call("plateaued", 0.5)]
    assert_match(/\Apuma leak soak over 2 rounds: unsettled \(growing in 1, plateaued in 1 of 2\), PSS \+0\.50 to \+8\.40 MiB\/min\z/,
      Arena::Report::Side.of(Arena::Scenarios::Soak).rounds_finding(mixed))
    assert_nil Arena::Scenarios::Soak.round_key(soak.call("growing", 1.0).with(variant: "closed-max"))
  end
end
