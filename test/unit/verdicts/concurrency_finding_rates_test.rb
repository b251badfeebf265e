# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require_relative "../../support/finding_text"

# Issue 45: "connections spread unevenly over 2 workers (16 and 0 of 16): 4
# of 8 slots reachable, so at most 285714.3 req/s at 0.0 ms a request" on
# Agoo, whose app worked microseconds. A finding never states a rate from a
# time it could not measure; the check on the words is Arena::FindingText's
# (test/support/finding_text.rb), which every integration run's findings
# pass too (ArenaCase).
class FindingRatesTest < Minitest::Test
  R = Arena::Results

  def load(rps: 9536.0)
    completed = (rps * 2).round
    R::LoadFigures.from_h({"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0, "throughput_rps" => rps,
      "connections" => {"requested" => 16, "opened" => 16}, "requests" => {"sent" => completed + 16, "completed" => completed},
      "latency_us" => {"count" => completed, "p50" => 380, "p99" => 4_000, "mean" => 1_700},
      "good" => {"completed" => completed, "rps" => rps, "latency_us" => {"count" => completed, "p50" => 380, "p99" => 4_000, "mean" => 1_700}}})
  end

  def queue(work_us)
    R::QueueSplit.new(n: 11_092, queue_n: 11_092, queue_p50_us: 378, queue_p99_us: 3_700, work_p50_us: work_us, work_p99_us: 149,
      work_mean_us: work_us, queue_mean_us: 1_200).freeze
  end

  # Agoo workers=2 threads=4: every connection in one worker.
  def summary(work_us)
    R::Summary.of(load, server_cpu_pct: 30.0, server_cores: 2, queue: queue(work_us), slots: 8, spread: {1 => 16, 2 => 0}, processes: 2)
  end

  def test_the_uneven_finding_states_no_rate_from_a_time_too_short_to_set_the_pace
    s = summary(10)
    assert_includes s.flags, "uneven"
    assert_equal "connections spread unevenly over 2 workers (16 and 0 of 16): 4 of 8 slots reachable", s.uneven
    assert_empty Arena::FindingText.rates_from_nothing([s.uneven])
  end

  # Where the work is long enough to set the pace, its limit is said.
  def test_a_measurable_working_time_gives_the_limit
    s = summary(50_000)
    assert_equal "connections spread unevenly over 2 workers (16 and 0 of 16): 4 of 8 slots reachable, so at most 80.0 req/s " \
      "at 50.0 ms a request", s.uneven
    assert_empty Arena::FindingText.rates_from_nothing([s.uneven])
  end

  def test_the_check_finds_a_rate_beside_a_zero_time
    said = ["so at most 285714.3 req/s at 0.0 ms a request", "2000 req/s x 0.0 ms unloaded over 8 slots", "25,565 req/s from 0 us",
      "it cost about 284 of 626 req/s", "mean 44.2 ms = waiting 0.6 ms + working 0.0 ms + 43.6 ms unexplained; it cost 2181 of 2536 req/s"]
    assert_equal said.first(3), Arena::FindingText.rates_from_nothing(said)
  end
end
