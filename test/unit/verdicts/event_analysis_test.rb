# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Recovery read from 100 ms slices: a slice that straddles the kill still holds
# answers from before it, so recovery must hold for half a second.
class EventAnalysisTest < Minitest::Test
  cover "Arena::Verdicts::EventAnalysis*"

  def load(counts, step_ms: 100)
    timeline = counts.each_with_index.map { |n, i| {"t" => (i * step_ms / 1000.0).round(2), "completed" => n, "good" => n, "errors" => 0} }
    Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "timeline_ms" => step_ms, "timeline" => timeline})
  end

  def test_a_dead_server_is_not_recovered_by_the_slice_that_straddles_the_kill
    counts = [10] * 20 + [10] + [0] * 39 # killed at 2.0 s; the 2.0-2.1 slice still answered
    result = Arena::Verdicts::EventAnalysis.call(load(counts), at: 2.0)
    refute result["recovered"], result.inspect
    assert_equal 100.0, result["dip_pct"]
  end

  # At 10,000 req/s a window's count is known to 1.5%: the window from
  # 2.1 s (84% of before) is not back, the one from 2.2 s is.
  def test_recovery_time_at_a_tenth_of_a_second
    counts = [1000] * 20 + [200, 300, 900] + [1000] * 37
    result = Arena::Verdicts::EventAnalysis.call(load(counts), at: 2.0)
    assert result["recovered"]
    assert_equal 0.3, result["recovery_s"], "the window from the 2.2 s slice is the first at 90%"
    assert_equal "recovered", result["verdict"]
    assert_equal "back to 90% throughput in 0.3 s", result["verdict_reason"]
    assert_equal 10_000.0, result["baseline_rps"]
    assert_equal 0.1, result["resolution_s"]
    assert_equal 80.0, result["dip_pct"]
  end

  # The same shape at 100 req/s: 84% of before over half a second (42
  # answers where 50 were due) is within Poisson's noise of 90%.
  def test_at_a_low_rate_a_small_shortfall_is_within_noise
    result = Arena::Verdicts::EventAnalysis.call(load([10] * 20 + [2, 3, 9] + [10] * 37), at: 2.0)
    assert_equal ["no lasting effect", 0.2], [result["verdict"], result["recovery_s"]]
  end

  def test_no_effect_at_all_is_said
    result = Arena::Verdicts::EventAnalysis.call(load([1000] * 60), at: 2.0)
    assert_equal "no lasting effect", result["verdict"]
    assert_equal "throughput at 90% or more of before from the first 0.5 s after", result["verdict_reason"]
    assert_equal 0.2, result["recovery_s"], "the end of the first slice wholly after the event"
  end

  def test_what_cannot_be_judged_says_why
    analysis = Arena::Verdicts::EventAnalysis
    assert_equal "cannot judge: no slice before the event to compare with", verdict(analysis.call(load([10] * 10), at: 0.0))
    assert_equal "cannot judge: nothing was served before the event", verdict(analysis.call(load([0] * 10 + [5] * 10), at: 1.0))
    # 4 slices after the event where a window needs 5.
    assert_equal "cannot judge: 4 slices after the event, a window needs 5", verdict(analysis.call(load([1000] * 25), at: 2.0))
    # 16 req/s: 1.6 answers a slice, a window needs 19 slices for 30 answers.
    assert_equal 19, analysis.window(1.6, 0.1)
  end

  def verdict(result) = "#{result["verdict"]}: #{result["verdict_reason"]}"

  # Simulated traffic of known truth and no kill: Poisson arrivals at 16 and
  # 100 req/s, and bursts (a burst of 1-8 requests arriving together). A kill
  # that did nothing must read "no lasting effect" in at least 95% of runs
  # (the old slice rule said "not back" in 59% at 16 req/s).
  def test_noisy_traffic_without_a_kill_has_no_lasting_effect
    rng = Random.new(7)
    {16 => 1, 100 => 1, 40 => 8}.each do |rate, burst|
      verdicts = Array.new(200) do
        counts = Array.new(60) { arrivals(rng, rate * 0.1 / ((burst + 1) / 2.0)).times.sum { 1 + rng.rand(burst) } }
        Arena::Verdicts::EventAnalysis.call(load(counts), at: 2.0)["verdict"]
      end
      calm = verdicts.count("no lasting effect")
      assert_operator calm, :>=, 190, "#{rate} req/s, bursts of up to #{burst}: #{verdicts.tally}"
    end
  end

  # Poisson counts (Knuth's method: small means only).
  def arrivals(rng, mean)
    limit = Math.exp(-mean)
    k = 0
    p = rng.rand
    while p > limit
      k += 1
      p *= rng.rand
    end
    k
  end

  def test_one_second_slices_keep_the_old_reading
    result = Arena::Verdicts::EventAnalysis.call(load([100, 100, 40, 95, 100, 100], step_ms: 1000), at: 2.0)
    assert_equal 2.0, result["recovery_s"]
    assert_equal 60.0, result["dip_pct"]
  end

  def slices(counts, from: 2.0, step: 0.1) = counts.each_with_index.map { |n, i| Arena::Results::TimelinePoint.new(t: (from + i * step).round(2), good: n) }

  # 10 answers a slice before: a window of 5 slices expects 50; Poisson's
  # spread is sqrt(50) = 7.07, so the floor is 0.9 x 50 - 2.33 x 7.07 = 28.5.
  def test_the_window_floor_on_values
    analysis = Arena::Verdicts::EventAnalysis
    before = [10] * 20
    back, first = analysis.judge(before, slices([5, 5, 6, 6, 7]), step: 0.1, at: 2.0, recovered: 0.9)
    assert_equal "no lasting effect: throughput at 90% or more of before from the first 0.5 s after", back.to_s
    assert_equal 2.0, first.t
    short, none = analysis.judge(before, slices([5, 5, 6, 6, 6]), step: 0.1, at: 2.0, recovered: 0.9)
    assert_equal "not recovered: throughput not back to 90% within the 0.5 s measured after", short.to_s
    assert_nil none
    later, slice = analysis.judge(before, slices([0, 5, 5, 6, 6, 7]), step: 0.1, at: 2.0, recovered: 0.9)
    assert_equal "recovered: back to 90% throughput in 0.2 s", later.to_s
    assert_equal 2.1, slice.t
    # 30 answers: back against 90% (floor 28.5), not against 100% (33.5); 25 back against 80% (23.5) only.
    assert_equal "not recovered", analysis.judge(before, slices([6] * 5), step: 0.1, at: 2.0, recovered: 1.0).first.word
    assert_equal "no lasting effect", analysis.judge(before, slices([6] * 5), step: 0.1, at: 2.0, recovered: 0.9).first.word
    assert_equal "no lasting effect", analysis.judge(before, slices([5] * 5), step: 0.1, at: 2.0, recovered: 0.8).first.word
    assert_equal "not recovered", analysis.judge(before, slices([5] * 5), step: 0.1, at: 2.0, recovered: 0.9).first.word
    assert_equal "cannot judge: 4 slices after the event, a window needs 5", analysis.judge(before, slices([10] * 4), step: 0.1, at: 2.0, recovered: 0.9).first.to_s
    assert_equal "no lasting effect", analysis.judge(before, slices([10] * 5), step: 0.1, at: 2.0, recovered: 0.9).first.word, "exactly a window"
  end

  def test_the_spread_of_a_windows_count
    analysis = Arena::Verdicts::EventAnalysis
    assert_in_delta Math.sqrt(50), analysis.spread([10] * 20, 50), 1e-9, "steady slices: Poisson's"
    assert_in_delta Math.sqrt(50), analysis.spread([10], 50), 1e-9, "one slice: Poisson's"
    assert_in_delta Math.sqrt(200.0 / 10 * 50), analysis.spread([0, 20], 50), 1e-9, "two slices have a variance"
    # Bursty: [0, 20] x 10 has variance 2000 / 19 over a mean of 10.
    assert_in_delta Math.sqrt(2000.0 / 19 / 10 * 50), analysis.spread([0, 20] * 10, 50), 1e-9
    assert_in_delta Math.sqrt(50), analysis.spread([9, 11] * 10, 50), 1e-9, "under Poisson's dispersion: Poisson's"
    bursty, = analysis.judge([0, 20] * 10, slices([2] * 5), step: 0.1, at: 2.0, recovered: 0.9)
    assert_equal "no lasting effect", bursty.word, "10 of 50 due is within a bursty baseline's spread"
  end

  def test_a_window_is_half_a_second_and_30_answers_at_least
    analysis = Arena::Verdicts::EventAnalysis
    assert_equal 5, analysis.window(100.0, 0.1)
    assert_equal 2, analysis.window(100.0, 0.3), "0.5 / 0.3 rounds to 2"
    assert_equal 1, analysis.window(100.0, 1.0)
    assert_equal 1, analysis.window(100.0, 2.0), "never 0 slices"
    assert_equal 3, analysis.window(10.0, 2.0), "30 answers at 10 a slice"
    assert_equal 4, analysis.window(9.0, 2.0)
  end

  # 601 answers in 30 slices before: 200.3 req/s. A window of 5 expects
  # 100.2, floor 66.8: from 3.1 s [0, 0, 10, 20, 20] = 50 is short, from
  # 3.2 s 70 is back (0.3 s after the kill); against 99% (floor 75.9) the
  # window from 3.3 s (90) is.
  def test_the_figures_around_the_event
    counts = [20] * 29 + [21] + [4, 0, 0, 10, 20, 20, 20, 20, 20]
    timeline = counts.each_with_index.map { |n, i| {"t" => (i * 0.1).round(2), "completed" => n + 1, "good" => n, "errors" => (i >= 30) ? 1 : 0} }
    load = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "timeline_ms" => 100, "timeline" => timeline})
    analysis = Arena::Verdicts::EventAnalysis
    x = analysis.call(load, at: 3.004)
    assert_equal [3.0, 0.1, 200.3, 0.0, 100.0, 9], x.values_at("event_at_s", "resolution_s", "baseline_rps", "dip_rps", "dip_pct", "errors_after_event")
    assert_equal ["recovered", true, 0.3], x.values_at("verdict", "recovered", "recovery_s")
    assert_equal (analysis::FIGURES - %i[error]).map(&:to_s), x.keys
    assert_equal "back to 99% throughput in 0.4 s", analysis.call(load, at: 3.0, recovered: 0.99)["verdict_reason"]
    half = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "timeline_ms" => 100,
      "timeline" => timeline.each_with_index.map { |p, i| p.merge("good" => [31, 32].include?(i) ? 7 : p["good"]) }})
    assert_equal [40.0, 80.0], analysis.call(half, at: 3.0).values_at("dip_rps", "dip_pct"), "dip 4 a slice (40 req/s) against 200.3: 80.0% to a tenth"
    idle = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "timeline_ms" => 100, "timeline" => timeline.map { |p| p.merge("good" => 0) }})
    assert_nil analysis.call(idle, at: 3.0)["dip_pct"], "no baseline to dip from"
  end

  def test_words_for_old_and_new_records
    analysis = Arena::Verdicts::EventAnalysis
    assert_equal "recovered: back to 90% throughput in 0.3 s", analysis.words({"verdict" => "recovered", "verdict_reason" => "back to 90% throughput in 0.3 s", "recovered" => false})
    assert_equal "back to 90% throughput in 2.0s", analysis.words({"recovered" => true, "recovery_s" => 2.0})
    assert_equal "throughput not back to 90%", analysis.words({"recovered" => false, "recovery_s" => 2.0})
  end

  # 300 ms slices: rates in thirds, reported to a tenth; times to a hundredth.
  def test_figures_are_rounded_as_reported
    load = load([10] * 10 + [1, 10, 10, 10, 10, 10, 10, 10, 10, 10], step_ms: 300)
    x = Arena::Verdicts::EventAnalysis.call(load, at: 3.0149)
    assert_equal [3.01, 33.3, 3.3, 90.0], x.values_at("event_at_s", "baseline_rps", "dip_rps", "dip_pct")
  end

  def timeline(step_ms, rows) = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "timeline_ms" => step_ms,
    "timeline" => rows.each_with_index.map { |(good, errors), i| {"t" => (i * step_ms / 1000.0).round(2), "completed" => good + errors, "good" => good, "errors" => errors} }})

  # 1 s slices, the event at 3.0 s: the slice 2-3 s ends at the event and is
  # before it (baseline 30 from 20, 30, 40); the errors and the slow slice
  # before the event are not "after" (9 errors after, the dip is 20 of 30:
  # 33.3% to a tenth).
  def test_the_slice_ending_at_the_event_is_before_it
    rows = [[20, 5], [30, 5], [40, 5]] + [[30, 1]] * 4 + [[20, 1]] + [[30, 1]] * 4
    x = Arena::Verdicts::EventAnalysis.call(timeline(1000, rows), at: 3.0)
    assert_equal [30.0, 20.0, 33.3, 9], x.values_at("baseline_rps", "dip_rps", "dip_pct", "errors_after_event")
  end

  # An event after the last slice: nothing after it to dip or judge.
  def test_an_event_after_the_last_slice
    x = Arena::Verdicts::EventAnalysis.call(load([10] * 10), at: 5.0)
    assert_equal [100.0, nil, nil, nil, false, 0], x.values_at("baseline_rps", "dip_rps", "dip_pct", "recovery_s", "recovered", "errors_after_event")
    assert_equal ["cannot judge", "0 slices after the event, a window needs 5"], x.values_at("verdict", "verdict_reason")
  end

  # Back only in the eighth window after the event (later than a window has
  # slices), timed to a hundredth from an event at 2.0125 s: the window
  # from 2.8 s holds 30 answers (floor 28.5), 2.9 - 2.0125 = 0.8875 s.
  def test_a_recovery_many_windows_later_is_found_and_timed_to_a_hundredth
    x = Arena::Verdicts::EventAnalysis.call(load([10] * 20 + [10] + [0] * 9 + [10] * 10), at: 2.0125)
    assert_equal ["recovered", "back to 90% throughput in 0.89 s", 0.89], x.values_at("verdict", "verdict_reason", "recovery_s")
  end

  # 50 ms slices: windows of 17 slices at 1.8 answers a slice; the times in
  # the words are rounded (0.85 s to a hundredth, 23 slices measured after
  # to a tenth), never 0.8500000000000001.
  def test_the_words_round_times_of_fine_slices
    before = [2, 2, 2, 2, 1] * 8
    x = Arena::Verdicts::EventAnalysis.call(load(before + [2] * 20, step_ms: 50), at: 2.0)
    assert_equal "throughput at 90% or more of before from the first 0.85 s after", x["verdict_reason"]
    x = Arena::Verdicts::EventAnalysis.call(load(before + [2] + [0] * 23, step_ms: 50), at: 2.0)
    assert_equal "throughput not back to 90% within the 1.2 s measured after", x["verdict_reason"]
  end

  # A window exactly at its floor is back: 50 a slice in 0.25 s slices, a
  # window of 2 expects 100 (spread 10); against 90.3% the floor is
  # 90.3 - 23.3 = 67 exactly (in floats too), and 33 + 34 is 67.
  def test_a_window_exactly_at_its_floor_is_back
    verdict, = Arena::Verdicts::EventAnalysis.judge([50] * 10, slices([33, 34], step: 0.25), step: 0.25, at: 2.0, recovered: 0.903)
    assert_equal "no lasting effect", verdict.word
    verdict, = Arena::Verdicts::EventAnalysis.judge([50] * 10, slices([33, 33], step: 0.25), step: 0.25, at: 2.0, recovered: 0.903)
    assert_equal "not recovered", verdict.word
  end
end
