# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Recovery read from 100 ms slices: a slice that straddles the kill still holds
# answers from before it, so recovery must hold for half a second.
class EventAnalysisTest < Minitest::Test
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

  def test_recovery_time_at_a_tenth_of_a_second
    counts = [10] * 20 + [2, 3, 9, 10, 10, 10, 10, 10] + [10] * 32
    result = Arena::Scenarios::EventAnalysis.call(load(counts), at: 2.0)
    assert result["recovered"]
    assert_equal 0.3, result["recovery_s"], "the 2.2 s slice is the first of five at 90% or more"
    assert_equal 100.0, result["baseline_rps"]
    assert_equal 0.1, result["resolution_s"]
  end

  def test_one_second_slices_keep_the_old_reading
    result = Arena::Scenarios::EventAnalysis.call(load([100, 100, 40, 95, 100, 100], step_ms: 1000), at: 2.0)
    assert_equal 2.0, result["recovery_s"]
    assert_equal 60.0, result["dip_pct"]
  end
end
