# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# What a profile's spike did to its requests: absorbed, queued, shed, or
# queued and shed, with the figures; pure, on values of known truth.
class SpikeRuleTest < Minitest::Test
  cover "Arena::Verdicts::Spike*"

  Rule = Arena::Verdicts::Spike

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
    # Figures said to one decimal; a rate not measured is none.
    assert_match(/, served at most 0\/s; .* 2\.5 s after the spike\z/, Rule.verdict(figures(spike_p90_us: 1_249_280, peak_good_rps: nil, drained_s: 2.46)).reason)
    stuck = Rule.verdict(figures(spike_p90_us: 1_249_280, peak_good_rps: 46.0, drained_s: nil))
    assert_match(/; the queue had not drained \(p99 not back to its level before\) within the 3 s measured after\z/, stuck.reason)
  end

  def test_requests_that_failed_are_shed
    v = Rule.verdict(figures(good: 45, errors: 30, dropped: 0, peak_good_rps: 80.0, error_kinds: %w[reset timeout]))
    assert_equal "shed", v.word
    assert_match(/; 30 of 75 shed \(errors: reset, timeout\)\z/, v.reason)
    both = Rule.verdict(figures(good: 40, errors: 35, spike_p90_us: 300_000, drained_s: 0.8))
    assert_equal "queued and shed", both.word
    assert_match(/; 35 of 75 shed \(errors\); the queue drained/, both.reason)
  end

  # Issue 33's audit: the run ends 2 s after the spike with 2,500 requests
  # never sent; they were said "queued and shed (2500 dropped)".
  def test_requests_still_waiting_when_the_run_ended_are_cut_off_not_shed
    v = Rule.verdict(figures(label: "spike 1500/s 2s", asked_rps: 1500.0, asked: 3000.0, good: 400, errors: 0, dropped: 2500,
      spike_p90_us: 1_900_000, spike_n: 400, peak_good_rps: 200.0, drained_s: nil, after_s: 2.0))
    assert_equal "queued", v.word
    assert_equal "asked 1500/s for 2 s, served at most 200/s; its requests' p90 1.90s against 24.0ms before (x79.2); none of 3000 shed; " \
      "2600 of 3000 cut off by the run's end (2500 never sent for want of a free connection, 100 in flight): waiting, not shed; " \
      "the queue had not drained (p99 not back to its level before) within the 2 s measured after", v.reason
    # Cut off with too few responses for a p90: still queued, said without one.
    few = Rule.verdict(figures(good: 5, spike_n: 5, dropped: 70))
    assert_equal "queued", few.word
    refute_match(/p90/, few.reason)
    # One cut off in 200 is within the limit: not a queue by itself.
    assert_equal "absorbed", Rule.verdict(figures(asked: 200.0, good: 198, dropped: 2)).word
    assert_equal "queued", Rule.verdict(figures(asked: 200.0, good: 197, dropped: 3)).word
  end

  # Issue 33's audit: a 200 ms request, 1500/s asked on the profile's 75
  # connections: 75 / 0.2 s = 375/s is all the loader can pass, and it was
  # said "queued, the server served at most 375/s".
  def test_a_spike_the_loaders_connections_capped_says_so
    capped = figures(label: "spike 1500/s 2s", asked_rps: 1500.0, asked: 3000.0, good: 750, dropped: 2250, before_p90_us: 210_000,
      spike_p90_us: 1_900_000, peak_good_rps: 372.0, drained_s: nil, connections: 75, before_p50_us: 200_000)
    v = Rule.verdict(capped)
    refute v.judged?
    assert_equal "the loader's 75 connections pass at most 375/s (75 / 200.0ms), under the 1500/s asked, and the server served " \
      "at most 372/s: the queue formed in the loader, not the server; a profile with more connections (-c 113 or more: a " \
      "profile opens four per -c) tells", v.reason
    # A server that served well under the cap made the queue itself.
    assert_equal "queued", Rule.verdict(capped.dup.tap { |f| f.peak_good_rps = 0.9 * 375 - 1 }).word
    refute Rule.verdict(capped.dup.tap { |f| f.peak_good_rps = 0.9 * 375 }).judged?
    assert_equal "queued", Rule.verdict(capped.dup.tap { |f| f.peak_good_rps = nil }).word, "a peak not measured is none served"
    # Asked no more than the cap: the loader was not the limit.
    assert_equal "queued", Rule.verdict(capped.dup.tap { |f| f.asked_rps = 375.0 }).word
    refute Rule.verdict(capped.dup.tap { |f| f.asked_rps = 375.1 }).judged?
    # Unknown connections or service time: no cap to judge by.
    assert_equal "queued", Rule.verdict(capped.dup.tap { |f| f.connections = nil }).word
    assert_equal "queued", Rule.verdict(capped.dup.tap { |f| f.before_p50_us = nil }).word
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
    assert_equal "asked 150/s for 0.5 s, served at most 150/s; 65 of 75 shed (errors)",
      Rule.verdict(figures(before_n: 6, good: 10, errors: 65)).reason, "said without a p90"
    refute Rule.verdict(figures(asked: 0.0)).judged?
  end

  # The edges of what it reads: a count that was not recorded is none, a
  # fraction of a request asked rounds, and the p90 needs 10 responses on
  # each side (either side short says which).
  def test_the_edges_of_the_figures_it_reads
    assert_equal "cannot judge: spike 150/s 0.5s asked for no request", Rule.verdict(figures(asked: 0.0)).to_s
    refute Rule.verdict(figures(asked: 0.4)).judged?, "0.4 of a request rounds to none"
    assert_equal "asked 1/s for 0.5 s, served at most 1/s; its requests' p90 25.0ms against 24.0ms before (x1.0); none of 1 shed",
      Rule.verdict(figures(asked_rps: 1.0, asked: 0.5, good: 1, peak_good_rps: 1.0)).reason
    unrecorded = Rule.verdict(figures(good: nil, errors: nil, dropped: nil))
    assert_equal "queued", unrecorded.word
    assert_equal "asked 150/s for 0.5 s, served at most 150/s; its requests' p90 25.0ms against 24.0ms before (x1.0); none of 75 shed; " \
      "75 of 75 cut off by the run's end (0 never sent for want of a free connection, 75 in flight): waiting, not shed; " \
      "the queue drained (p99 back to its level before) 0.1 s after the spike", unrecorded.reason
    assert_equal "shed", Rule.verdict(figures(good: nil, errors: 75)).word
    # More answered than asked (a request of the stage before answered in it): nothing cut off.
    assert_equal "absorbed", Rule.verdict(figures(good: 80)).word
    refute_match(/cut off/, Rule.verdict(figures(good: 80)).reason)
    # More never sent than the cut (counted by another clock): none in flight, not a negative count.
    assert_match(/; 5 of 75 cut off by the run's end \(9 never sent for want of a free connection, 0 in flight\)/,
      Rule.verdict(figures(good: 70, dropped: 9)).reason)
    assert Rule.verdict(figures(before_n: 10, spike_n: 10)).judged?
    assert_equal "the spike has 9 good responses, a p90 needs 10", Rule.verdict(figures(spike_n: 9)).reason
    assert_equal "the stage before the spike has 0 good responses, a p90 needs 10", Rule.verdict(figures(before_n: nil)).reason
    assert_equal "the spike has 0 good responses, a p90 needs 10", Rule.verdict(figures(spike_n: nil)).reason
    refute Rule.verdict(figures(before_p90_us: nil)).judged?
    refute Rule.verdict(figures(spike_p90_us: nil)).judged?
  end

  # Queued: the p90 beyond twice the one before and beyond it plus 1 ms, both.
  def test_queued_is_beyond_both_edges
    assert_equal "absorbed", Rule.verdict(figures(before_p90_us: 24_000, spike_p90_us: 48_000)).word
    assert_equal "queued", Rule.verdict(figures(before_p90_us: 24_000, spike_p90_us: 48_001)).word
    assert_equal "absorbed", Rule.verdict(figures(before_p90_us: 500, spike_p90_us: 1_500)).word
    assert_equal "queued", Rule.verdict(figures(before_p90_us: 500, spike_p90_us: 1_501)).word
  end
end
