# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# What a profile's spike did to its requests: absorbed, queued, shed, or
# queued and shed, with the figures; pure, on values of known truth.
class SpikeRuleTest < Minitest::Test
  Rule = Arena::Scenarios::SpikeRule

  def figures(**changes)
    Rule::Figures.new(label: "spike 150/s 0.5s", asked_rps: 150.0, asked: 75.0, good: 75, errors: 0, dropped: 0,
      before_p90_us: 24_000, before_n: 20, spike_p90_us: 25_000, spike_n: 75, peak_good_rps: 150.0,
      drained_s: 0.1, after_s: 3.0, **changes).freeze
  end

  def test_a_spike_served_on_time_and_whole_is_absorbed
    v = Rule.verdict(figures)
    assert_equal "absorbed", v.word
    assert_equal "asked 150/s for 0.5 s, served at most 150/s; its requests' p90 25.0ms against 24.0ms before (x1.0); none of 75 shed", v.reason
  end

  # 1-thread Puma on a 20 ms sleep: 75 requests in 0.5 s, served at ~45/s.
  def test_a_spike_over_capacity_served_late_is_queued_with_the_drain_time
    v = Rule.verdict(figures(spike_p90_us: 1_249_280, peak_good_rps: 46.0, drained_s: 2.4))
    assert_equal "queued", v.word
    assert_equal "asked 150/s for 0.5 s, served at most 46/s; its requests' p90 1.25s against 24.0ms before (x52.1); none of 75 shed; " \
      "the queue drained (p99 back to its level before) 2.4 s after the spike", v.reason
    stuck = Rule.verdict(figures(spike_p90_us: 1_249_280, peak_good_rps: 46.0, drained_s: nil))
    assert_match(/; the queue had not drained \(p99 not back to its level before\) within the 3 s measured after\z/, stuck.reason)
  end

  def test_requests_dropped_or_failed_are_shed
    v = Rule.verdict(figures(good: 40, errors: 30, dropped: 5, peak_good_rps: 80.0, error_kinds: %w[reset timeout]))
    assert_equal "shed", v.word
    assert_match(/; 35 of 75 shed \(5 dropped, 30 errors: reset, timeout\)\z/, v.reason)
    both = Rule.verdict(figures(good: 40, errors: 35, spike_p90_us: 300_000, drained_s: 0.8))
    assert_equal "queued and shed", both.word
  end

  # One error in 75 is under the 1% a measurement may have before it is flagged.
  def test_shed_needs_more_than_the_error_limit_and_queued_more_than_noise
    assert_equal "absorbed", Rule.verdict(figures(asked: 200.0, good: 199, errors: 1)).word
    assert_equal "absorbed", Rule.verdict(figures(before_p90_us: 300, spike_p90_us: 900)).word, "x3 but under a millisecond more"
    assert_equal "queued", Rule.verdict(figures(before_p90_us: 300, spike_p90_us: 1_400)).word
  end

  def test_without_a_p90_before_and_during_it_cannot_judge_the_queue
    v = Rule.verdict(figures(before_n: 6))
    refute v.judged?
    assert_equal "the stage before the spike has 6 good responses, a p90 needs 10", v.reason
    assert_equal "shed", Rule.verdict(figures(before_n: 6, good: 10, errors: 65)).word, "shed is known without latency"
    refute Rule.verdict(figures(asked: 0.0)).judged?
  end
end
