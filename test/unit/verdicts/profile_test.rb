# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Verdicts::Profile on runs worked out by hand: each stage's row whole, which
# stages a recovery is read after, the windows its figures are read from (to
# the slice, where a profile's starts carry float noise), what Spike is given,
# and the helpers at their edges. LoadProfileTest has the syntax and the
# verdicts on a smooth run.
class ProfileVerdictTest < Minitest::Test
  cover "Arena::Verdicts::Profile*"

  V = Arena::Verdicts::Profile

  def profile(spec) = Arena::Load::Profile.parse(spec)

  # One engine slice: t as the engine prints it (i * timeline_ms / 1000.0).
  def slice(i, good, p99: 5_000, kinds: {}, completed: good, ms: 100)
    {"t" => (i * ms) / 1000.0, "completed" => completed, "good" => good, "errors" => kinds.values.sum,
     "p50_us" => 1000, "p99_us" => p99, "error_kinds" => kinds}
  end

  def stage(asked, good:, seconds: 1, errors: 0, dropped: 0, sent: asked, n: good, p50: 1000, p90: 2000, p99: 3000)
    {"from_rps" => asked / seconds, "to_rps" => asked / seconds, "start_s" => 0, "duration_s" => seconds, "asked" => asked,
     "sent" => sent, "completed" => good + errors, "good" => good, "errors" => errors, "dropped" => dropped,
     "latency_us" => {"count" => n, "p50" => p50, "p90" => p90, "p99" => p99}}
  end

  def load_of(slices, stages: nil, ms: 100, connections: 40)
    raw = {"schema" => "arena-load/2", "model" => "open", "duration_s" => slices.size * ms / 1000.0, "timeline_ms" => ms,
           "timeline" => slices, "connections" => {"requested" => connections}}
    raw["stages"] = stages if stages
    Arena::Results::LoadFigures.from_h(raw)
  end

  # hold 100/s 2s, hold 100/s 1s, spike 400/s 1s, hold 100/s 2s, hold 300/s 1s
  # in 100 ms slices. The first stage is busier and slower than the one
  # before the spike (so a "before" read from too early shows), the stage
  # before's p99s are uneven (their median is 4.3 ms, 4.2 ms without its first
  # slice), the stage after dips for 5 slices, its p99 is under the limit for
  # one slice (4.1 s) and back at exactly the limit at 4.3 s with an empty
  # slice (4.6 s) in the window after; the last stage is the busiest of all.
  SPEC = "hold 100/s 2s, hold 100/s 1s, spike 400/s 1s, hold 100/s 2s, hold 300/s 1s"
  BEFORE_P99 = [4600, 4200, 3900, 4100, 5000, 4400, 4300, 3800, 4000, 4500].freeze
  AFTER_P99 = {40 => 20_000, 41 => 3_000, 42 => 20_000, 43 => 8_600}.freeze
  KINDS = {25 => {"connect_refused" => 1}, 35 => {"timeout" => 2}, 36 => {"connect_timeout" => 0}, 50 => {"unexpected_status" => 1},
           51 => {"timeout" => 1}, 65 => {"reset" => 3}}.freeze

  def run_slices
    (0...70).map do |i|
      kinds = KINDS.fetch(i, {})
      case i
      when 0...20 then slice(i, 30, p99: 50_000)
      when 20...30 then slice(i, 10, p99: BEFORE_P99[i - 20], kinds: kinds)
      when 30...40 then slice(i, 40, p99: 100_000, kinds: kinds)
      when 46 then slice(i, 0, p99: 0)
      when 40...60 then slice(i, (i < 45) ? 2 : 10, p99: AFTER_P99.fetch(i, 100), kinds: kinds)
      else slice(i, 30, p99: 50_000, kinds: kinds)
      end
    end
  end

  def run_stages
    [stage(200, good: 200, seconds: 2, p50: 900, p90: 2_500, p99: 5_000), stage(100, good: 100, p50: 2_000, p90: 4_000, p99: 4_600),
      stage(400, good: 380, errors: 2, dropped: 10, sent: 395, p50: 30_000, p90: 90_000, p99: 100_000),
      stage(200, good: 195, seconds: 2, errors: 1, dropped: 4, p50: 1_100, p90: 3_000, p99: 8_000),
      stage(300, good: 300, p50: 5_000, p90: 40_000, p99: 50_000)]
  end

  def test_after_the_spike_is_the_end_of_the_stage_after_it
    p = profile("hold 100/s 1s, hold 100/s 2s, spike 400/s 1500ms, hold 100/s 3s, hold 100/s 1s")
    assert_equal [0.0, 1.0, 3.0, 4.5, 7.5], p.starts
    assert_equal 7.5, V.after_end(p, 2)
    assert_equal 8.5, V.after_end(p, 3)
  end

  # "hold 100/s 100ms, hold 100/s 200ms, spike 400/s 400ms, ..." starts its
  # spike at 0.1 + 0.2 = 0.30000000000000004 s and the stage after at
  # 0.7000000000000001 s: the engine's slices 0.3 and 0.7 start them, and
  # belong to them.
  NOISY = "hold 100/s 100ms, hold 100/s 200ms, spike 400/s 400ms, hold 100/s 300ms"

  def test_the_error_kinds_between_two_starts_to_the_slice
    p = profile(NOISY)
    assert_equal [0.0, 0.1, 0.30000000000000004, 0.7000000000000001], p.starts
    kinds = {2 => {"connect_refused" => 1}, 3 => {"parse" => 2, "connect_timeout" => 0}, 4 => {"body_mismatch" => 3, "timeout" => 1},
             5 => {"unexpected_status" => 1, "timeout" => 1}, 7 => {"reset" => 1}, 9 => {"closed_before_response" => 1}}
    load = load_of((0...10).map { |i| slice(i, 10, kinds: kinds.fetch(i, {})) })
    got = V.error_kinds(load, p.starts[2], p.starts[3])
    assert_equal %w[body_mismatch parse timeout unexpected_status], got, "a kind counted 0 times is not one seen; each kind once, in order"
    assert_predicate got, :frozen?
    assert_equal [], V.error_kinds(load, 1.0, 2.0)
  end

  def test_the_peak_rate_counts_the_slices_between_two_starts_to_the_slice
    p = profile(NOISY)
    goods = [0, 0, 100, 60, 10, 5, 20, 100, 0, 0]
    load = load_of(goods.each_with_index.map { |g, i| slice(i, g) })
    # 0.3 to 0.6: windows of two slices 70, 15 and 25 good
    assert_in_delta 350.0, V.peak_rate(load, p.starts[2], p.starts[3], 0.2), 1e-9
    # one slice at least, at most all of them
    assert_in_delta 600.0, V.peak_rate(load, p.starts[2], p.starts[3], 0.01), 1e-9
    assert_in_delta 237.5, V.peak_rate(load, p.starts[2], p.starts[3], 10.0), 1e-9
    # 0.25 s is 2.5 slices: three
    assert_in_delta 75 / 0.3, V.peak_rate(load, p.starts[2], p.starts[3], 0.25), 1e-9
    assert_in_delta 1000.0, V.peak_rate(load, 0.7, 0.8, 0.5), 1e-9, "one slice"
    assert_equal 0.0, V.peak_rate(load, 1.0, 2.0, 0.5), "no slice in the window"
    # the busiest window is not the first
    assert_in_delta 600.0, V.peak_rate(load_of([5, 10, 60, 0].each_with_index.map { |g, i| slice(i, g) }), 0.0, 0.4, 0.1), 1e-9
  end

  def test_the_p99_is_back_from_the_first_of_half_a_second_of_slices_under_the_limit
    after = [[20_000, 10], [3_000, 10], [20_000, 10], [8_600, 10], [100, 10], [0, 0], [100, 10], [100, 10]].each_with_index.map do |(p99, n), i|
      Arena::Results::TimelinePoint.new(t: i / 10.0, completed: n, good: n, errors: 0, p50_us: 1, p99_us: p99, error_kinds: {}).freeze
    end
    assert_same after[3], V.p99_back(after, 8_600, 0.1), "one slice under the limit is not back; at the limit is back; an empty slice in the window is no p99"
    assert_nil V.p99_back(after, 8_599, 0.1)
    assert_nil V.p99_back(after.first(7), 8_600, 0.1), "half a second of slices: five"
    assert_same after[1], V.p99_back(after.first(2), 8_600, 2.0), "a slice longer than the hold is a window of one"
  end

  def test_the_median_of_the_p99s_before
    assert_equal 4_300, V.median([4600, 4200, 3900, 4100, 5000, 4400, 4300, 3800, 4000, 4500])
    assert_equal 4_200, V.median([4200, 3900, 4100, 5000, 4400, 4300, 3800, 4000, 4500])
    assert_equal 0, V.median([])
  end

  def test_the_stage_after_that_asked_for_less_than_one_request_is_not_judged_on_its_own
    x = {"verdict" => "no lasting effect"}
    after = Arena::Results::StageFigures.from_engine([stage(0.5, good: 0, seconds: 0.5)]).first
    assert_same x, V.own_requests(x, after, 0.5)
    assert_equal "not recovered", V.own_requests(x, after, 1.0)["verdict"]
  end

  def test_each_stage_s_row_whole
    p = profile("hold 100/s 3s, spike 400/s 1s, ramp 100..200/s 3s, hold 50/s 2s")
    figures = [stage(300, good: 298, seconds: 3, errors: 1, dropped: 1, sent: 299, n: 298, p50: 900, p90: 2_500, p99: 5_000),
      stage(400, good: 380, errors: 2, dropped: 10, sent: 395, n: 380, p50: 30_000, p90: 90_000, p99: 100_000),
      stage(450, good: 449, seconds: 3, sent: 449, n: 99, p50: 1_100, p90: 3_000, p99: 8_000)]
    x = V.analyse(p, load_of((0...90).map { |i| slice(i, 10) }, stages: figures))
    assert_equal p.spec, x["profile"]
    assert_equal [
      {"kind" => "hold", "label" => "hold 100/s 3s", "start_s" => 0.0, "seconds" => 3.0, "asked_rps" => 100.0, "sent_rps" => 99.7,
       "good_rps" => 99.3, "p50_us" => 900, "p90_us" => 2_500, "p99_us" => 5_000, "errors" => 1, "dropped" => 1},
      {"kind" => "spike", "label" => "spike 400/s 1s", "start_s" => 3.0, "seconds" => 1.0, "asked_rps" => 400.0, "sent_rps" => 395.0,
       "good_rps" => 380.0, "p50_us" => 30_000, "p90_us" => 90_000, "p99_us" => 100_000, "errors" => 2, "dropped" => 10},
      {"kind" => "ramp", "label" => "ramp 100..200/s 3s", "start_s" => 4.0, "seconds" => 3.0, "asked_rps" => 150.0, "sent_rps" => 149.7,
       "good_rps" => 149.7, "p50_us" => 1_100, "p90_us" => 3_000, "p99_us" => nil, "errors" => 0, "dropped" => 0},
      {"kind" => "hold", "label" => "hold 50/s 2s", "start_s" => 7.0, "seconds" => 2.0, "asked_rps" => 50.0, "sent_rps" => nil,
       "good_rps" => nil, "p50_us" => nil, "p90_us" => nil, "p99_us" => nil, "errors" => nil, "dropped" => nil}
    ], x["stages"], "the ramp's 99 responses are too few for a p99; the last stage has no figures"
    assert_equal [{"x" => 3.0, "label" => "spike"}, {"x" => 4.0, "label" => "ramp"}, {"x" => 7.0, "label" => "hold"}], x["marks"]
  end

  def test_a_run_without_stage_figures_has_rows_without_them
    p = profile("hold 100/s 1s, spike 400/s 2s, hold 100/s 1s")
    x = V.analyse(p, load_of((0...40).map { |i| slice(i, [1, 2].include?(i / 10) ? 40 : 10) }))
    assert_equal [nil] * 3, x["stages"].map { |s| s["good_rps"] }
    assert_equal [100.0, 400.0, 100.0], x["stages"].map { |s| s["asked_rps"] }
    r = x["recoveries"].first
    assert_equal ["spike 400/s 2s", "no lasting effect"], r.values_at("spike", "verdict")
    f = V.spike_figures(p, load_of([]), 1, nil)
    assert_equal({label: "spike 400/s 2s", asked_rps: 400.0, asked: 800.0, good: 0, errors: 0, dropped: 0, error_kinds: [], before_p90_us: nil,
                  before_n: 0, spike_p90_us: nil, spike_n: 0, peak_good_rps: 0.0, drained_s: nil, after_s: 1.0, connections: 40, before_p50_us: nil}, f.to_h)
  end

  # A spike first has no stage before it, a spike last none after it: no
  # recovery is read there, nor after a hold.
  def test_a_recovery_after_each_spike_between_two_stages
    p = profile("spike 400/s 1s, hold 100/s 1s, spike 400/s 1s, hold 100/s 1s, hold 100/s 1s, spike 400/s 1s")
    x = V.analyse(p, load_of((0...60).map { |i| slice(i, (i / 10).even? ? 40 : 10) }))
    assert_equal [["spike 400/s 1s", 3.0]], x["recoveries"].map { |r| r.values_at("spike", "spike_end_s") }
  end

  def test_what_spike_is_given
    p = profile(SPEC)
    load = load_of(run_slices, stages: run_stages)
    f = V.spike_figures(p, load, 2, 0.4)
    assert_equal({label: "spike 400/s 1s", asked_rps: 400.0, asked: 400.0, good: 380, errors: 2, dropped: 10,
                  error_kinds: %w[timeout unexpected_status], before_p90_us: 4_000, before_n: 100, spike_p90_us: 90_000, spike_n: 380,
                  peak_good_rps: 400.0, drained_s: 0.4, after_s: 2.0, connections: 40, before_p50_us: 2_000}, f.to_h)
    assert_predicate f, :frozen?
    assert_predicate f.error_kinds, :frozen?
    # the peak is read from the spike's start on: the stage before, busier, is not in it
    busy = profile("hold 100/s 2s, hold 100/s 2s, spike 400/s 1s, hold 100/s 1s")
    slices = (0...60).map { |i| slice(i, [10, 10, 30, 30, 20, 10][i / 10]) }
    assert_equal 200.0, V.spike_figures(busy, load_of(slices), 2, nil).peak_good_rps
  end

  def test_the_recovery_after_a_spike_whole
    p = profile(SPEC)
    load = load_of(run_slices, stages: run_stages)
    r = V.analyse(p, load)["recoveries"]
    assert_equal [{"event_at_s" => 3.0, "resolution_s" => 0.1, "baseline_rps" => 100.0, "dip_rps" => 0.0, "dip_pct" => 100.0,
                   "recovery_s" => 0.5, "recovered" => true, "verdict" => "recovered", "verdict_reason" => "back to 90% throughput in 0.5 s",
                   "errors_after_event" => 2, "spike" => "spike 400/s 1s", "spike_end_s" => 4.0, "p99_limit_us" => 8_600, "p99_back_s" => 0.4,
                   "spike_verdict" => "queued", "spike_reason" => "asked 400/s for 1 s, served at most 400/s; its requests' p90 90.0ms " \
                   "against 4.0ms before (x22.5); 2 of 400 shed (errors: timeout, unexpected_status); 18 of 400 cut off by the run's end (10 never " \
                   "sent for want of a free connection, 8 in flight): waiting, not shed; the queue drained (p99 back to its level before) " \
                   "0.4 s after the spike"}], r
  end

  # hold 100/s 300ms, spike 400/s 1100ms, hold 100/s 300ms: the spike starts
  # at 0.3 (the slice 0.2 ends at 0.30000000000000004, and is before it) and
  # ends at 1.4000000000000001 (the slice 1.4 is after it), the stage after
  # ends at 1.7000000000000002 (the slice 1.7 is not in it).
  def test_the_slices_before_and_after_a_spike_to_the_slice
    p = profile("hold 100/s 300ms, spike 400/s 1100ms, hold 100/s 300ms, hold 100/s 1s")
    assert_equal [0.0, 0.3, 1.4000000000000001, 1.7000000000000002], p.starts
    slices = (0...27).map do |i|
      case i
      when 0..2 then slice(i, [10, 10, 40][i], p99: [3_000, 1_000, 2_000][i], kinds: (i == 2) ? {"connect_refused" => 1} : {})
      when 3..13 then slice(i, 40, p99: 100_000)
      when 14 then slice(i, 3, p99: 1_000, kinds: {"timeout" => 1})
      when 17 then slice(i, 1, p99: 1_000, kinds: {"reset" => 2})
      else slice(i, 10, p99: 1_000)
      end
    end
    r = V.analyse(p, load_of(slices))["recoveries"].first
    assert_equal({"baseline_rps" => 200.0, "p99_limit_us" => 4_000, "dip_rps" => 30.0, "errors_after_event" => 1, "p99_back_s" => nil},
      r.slice("baseline_rps", "p99_limit_us", "dip_rps", "errors_after_event", "p99_back_s"), r.inspect)
  end

  # hold 5/s 1s, spike 400/s 1066ms, hold 100/s 1s: the slices before the
  # spike that answered nothing have no p99 (the median is of the others:
  # 2 ms, the limit 4 ms); the stage after starts at 2.066 s, so its slices
  # (2.1 s on) move back to 1.034 s on, and the p99 is back in the slice
  # that ends 0.434 s after the spike (said to 0.01 s).
  def test_the_figures_of_a_spike_that_ends_between_two_slices
    p = profile("hold 5/s 1s, spike 400/s 1066ms, hold 100/s 1s, hold 100/s 1s")
    assert_equal [0.0, 1.0, 2.066, 3.066], p.starts
    before = [0, 2_000, 0, 3_000, 0, 1_000, 0, 4_000, 0, 1_500]
    after = {21 => 20_000, 22 => 9_000, 23 => 5_000}
    slices = (0...40).map do |i|
      case i
      when 0..9 then slice(i, before[i].positive? ? 1 : 0, p99: before[i])
      when 10..20 then slice(i, 40, p99: 100_000)
      else slice(i, 10, p99: after.fetch(i, 1_000))
      end
    end
    r = V.analyse(p, load_of(slices))["recoveries"].first
    assert_equal({"verdict_reason" => "10 slices after the event, a window needs 60", "p99_limit_us" => 4_000, "p99_back_s" => 0.43},
      r.slice("verdict_reason", "p99_limit_us", "p99_back_s"), r.inspect)
    assert_kind_of Integer, r["p99_limit_us"], "microseconds, as the stages' p99s"
  end

  # No response before the spike: no p99 to be back under.
  def test_no_limit_without_a_p99_before_the_spike
    p = profile("hold 100/s 1s, spike 400/s 1s, hold 100/s 1s")
    r = V.analyse(p, load_of((0...30).map { |i| (i < 10) ? slice(i, 0, p99: 0) : slice(i, 10) }))["recoveries"].first
    assert_equal({"p99_limit_us" => nil, "p99_back_s" => nil}, r.slice("p99_limit_us", "p99_back_s"))
  end
end
