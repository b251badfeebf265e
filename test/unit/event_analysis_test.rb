# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Recovery read from 100 ms slices: a slice that straddles the kill still holds
# answers from before it, so recovery must hold for half a second.
class EventAnalysisTest < Minitest::Test
  cover "Arena::Scenarios::EventAnalysis*"

  def load(counts, step_ms: 100)
    timeline = counts.each_with_index.map { |n, i| {"t" => (i * step_ms / 1000.0).round(2), "completed" => n, "good" => n, "errors" => 0} }
    Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "timeline_ms" => step_ms, "timeline" => timeline})
  end

  def test_a_dead_server_is_not_recovered_by_the_slice_that_straddles_the_kill
    counts = [10] * 20 + [10] + [0] * 39 # killed at 2.0 s; the 2.0-2.1 slice still answered
    result = Arena::Scenarios::EventAnalysis.call(load(counts), at: 2.0)
    refute result["recovered"], result.inspect
    assert_equal 100.0, result["dip_pct"]
  end

  # At 10,000 req/s a window's count is known to 1.5%: the window from
  # 2.1 s (84% of before) is not back, the one from 2.2 s is.
  def test_recovery_time_at_a_tenth_of_a_second
    counts = [1000] * 20 + [200, 300, 900] + [1000] * 37
    result = Arena::Scenarios::EventAnalysis.call(load(counts), at: 2.0)
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
    result = Arena::Scenarios::EventAnalysis.call(load([10] * 20 + [2, 3, 9] + [10] * 37), at: 2.0)
    assert_equal ["no lasting effect", 0.2], [result["verdict"], result["recovery_s"]]
  end

  def test_no_effect_at_all_is_said
    result = Arena::Scenarios::EventAnalysis.call(load([1000] * 60), at: 2.0)
    assert_equal "no lasting effect", result["verdict"]
    assert_equal "throughput at 90% or more of before from the first 0.5 s after", result["verdict_reason"]
    assert_equal 0.2, result["recovery_s"], "the end of the first slice wholly after the event"
  end

  def test_what_cannot_be_judged_says_why
    analysis = Arena::Scenarios::EventAnalysis
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
        Arena::Scenarios::EventAnalysis.call(load(counts), at: 2.0)["verdict"]
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
    result = Arena::Scenarios::EventAnalysis.call(load([100, 100, 40, 95, 100, 100], step_ms: 1000), at: 2.0)
    assert_equal 2.0, result["recovery_s"]
    assert_equal 60.0, result["dip_pct"]
  end
end
