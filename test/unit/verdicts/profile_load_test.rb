# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# --profile: its syntax, and the profile scenario's reading of a run (stages, recovery after a spike).
class LoadProfileTest < Minitest::Test
  cover "Arena::Verdicts::Profile*"

  SPEC = "ramp 0..500/s 60s, hold 500/s 2m, spike 1500/s 10s, hold 500/s 60s"

  def test_stages_as_people_write_them_become_the_engines
    p = Arena::Load::Profile.parse(SPEC)
    assert_equal %w[ramp hold spike hold], p.stages.map(&:kind)
    assert_equal "0:500:60,500:500:120,1500:1500:10,500:500:60", p.engine_spec
    assert_equal [0.0, 60.0, 180.0, 190.0], p.starts
    assert_equal 250, p.total_s
    assert_equal "spike 1500/s 10s", p.stages[2].label
    assert_equal "2.5:2.5:0.5", Arena::Load::Profile.parse("hold 2.5/s 500ms").engine_spec
  end

  def test_a_bad_profile_is_one_clear_usage_error
    ["", "hold 500/s", "ramp 500/s 10s", "hold 500/s 10s,", "surge 5/s 1s", "hold 0/s 5s", "hold 1e9/s 1s"].each do |spec|
      e = assert_raises(Arena::UsageError, spec) { Arena::Load::Profile.parse(spec) }
      assert_match(/\A--profile .*e\.g\. 'ramp 0\.\.500/, e.message)
    end
  end

  # A run of hold 100/s 2 s, spike 400/s 1 s, hold 100/s 2 s in 100 ms slices:
  # after the spike, goodput is down for `dip` slices and p99 high for `slow` slices.
  def load(dip:, slow:, spike_p90: 4_000, empty_after: 0)
    timeline = (0...50).map do |i|
      t = i / 10.0
      in_spike = t >= 2 && t < 3
      after = (t >= 3) ? ((t - 3) * 10).round : nil
      good = if in_spike
        40
      else
        ((after && after < dip) ? 2 : 10)
      end
      p99 = (after && after < slow) ? 80_000 : 5_000
      good, p99 = 0, 0 if after && after < empty_after
      Arena::Results::TimelinePoint.new(t: t.round(1), completed: good, good: good, errors: 0, p50_us: 1000, p99_us: p99, error_kinds: {}).freeze
    end
    stage = ->(from, to, start, seconds, p90, p99) {
      {"from_rps" => from, "to_rps" => to, "start_s" => start, "duration_s" => seconds, "asked" => from * seconds,
       "sent" => from * seconds, "completed" => from * seconds, "good" => from * seconds, "errors" => 0, "dropped" => 0,
       "latency_us" => {"count" => from * seconds, "p50" => 1000, "p90" => p90, "p99" => p99}}
    }
    raw = {"schema" => "arena-load/2", "model" => "open", "duration_s" => 5.0, "timeline_ms" => 100,
           "stages" => [stage.call(100, 100, 0, 2, 4000, 5000), stage.call(400, 400, 2, 1, spike_p90, 9000), stage.call(100, 100, 3, 2, 60_000, 80_000)]}
    Arena::Results::LoadFigures.from_h(raw).then { |l| l.dup.tap { |x| x.timeline = timeline.freeze }.freeze }
  end

  def test_each_stage_and_the_recovery_after_a_spike
    profile = Arena::Load::Profile.parse("hold 100/s 2s, spike 400/s 1s, hold 100/s 2s")
    x = Arena::Verdicts::Profile.analyse(profile, load(dip: 8, slow: 12))
    assert_equal [100.0, 400.0, 100.0], x["stages"].map { |s| s["sent_rps"] }
    assert_equal [5000, 9000, 80_000], x["stages"].map { |s| s["p99_us"] }
    assert_equal [{"x" => 2.0, "label" => "spike"}, {"x" => 3.0, "label" => "hold"}], x["marks"]
    r = x["recoveries"].first
    assert_equal "spike 400/s 1s", r["spike"]
    assert_equal "recovered", r["verdict"]
    assert_in_delta 0.7, r["recovery_s"], 0.01, "EventAnalysis: 2.33 sigma below 90% of the window before: #{r.inspect}"
    assert_equal 10_000, r["p99_limit_us"]
    assert_in_delta 1.3, r["p99_back_s"], 0.11, r.inspect

    calm = Arena::Verdicts::Profile.analyse(profile, load(dip: 0, slow: 0))["recoveries"].first
    assert_equal "no lasting effect", calm["verdict"]
    assert_in_delta 0.1, calm["p99_back_s"], 0.01
    stuck = Arena::Verdicts::Profile.analyse(profile, load(dip: 20, slow: 20))["recoveries"].first
    assert_equal "not recovered", stuck["verdict"]
    assert_nil stuck["p99_back_s"]
  end

  # Goodput never dips when a server queues a spike: the spike's own
  # requests say it (their p90 against the stage before), and the p99's
  # return says when the queue drained.
  def test_a_spike_answered_late_is_queued_and_drains_when_the_p99_is_back
    profile = Arena::Load::Profile.parse("hold 100/s 2s, spike 400/s 1s, hold 100/s 2s")
    r = Arena::Verdicts::Profile.analyse(profile, load(dip: 0, slow: 12, spike_p90: 300_000))["recoveries"].first
    assert_equal "no lasting effect", r["verdict"], "throughput alone sees nothing"
    assert_equal "queued", r["spike_verdict"]
    assert_equal "asked 400/s for 1 s, served at most 400/s; its requests' p90 300.0ms against 4.0ms before (x75.0); none of 400 shed; " \
      "the queue drained (p99 back to its level before) 1.3 s after the spike", r["spike_reason"]
    calm = Arena::Verdicts::Profile.analyse(profile, load(dip: 0, slow: 0))["recoveries"].first
    assert_equal "absorbed", calm["spike_verdict"]
  end

  # A server over capacity serves the spike's backlog at its capacity, so
  # goodput by completion time never dips, while the stage after's own
  # requests go unanswered (dropped: the backlog holds every connection). On
  # one core, every server did this to `hold 30/s 2s, spike 400/s 1s, hold
  # 30/s 5s` on /trial, and the words said "no lasting effect".
  def test_the_stage_after_whose_own_requests_went_unanswered_has_not_recovered
    profile = Arena::Load::Profile.parse("hold 100/s 2s, spike 400/s 1s, hold 100/s 2s")
    calm = load(dip: 0, slow: 0)
    after = ->(good, dropped) {
      calm.stages[2].dup.tap { |st|
        st.good = good
        st.dropped = dropped
      }.freeze
    }
    with_after = ->(st) { calm.dup.tap { |l| l.stages = [calm.stages[0], calm.stages[1], st].freeze }.freeze }
    starved = with_after.call(after.call(19, 181))
    r = Arena::Verdicts::Profile.analyse(profile, starved)["recoveries"].first
    assert_equal "not recovered", r["verdict"]
    assert_equal false, r["recovered"]
    assert_equal "19 of the 200 requests asked in the stage after were answered well (181 dropped, 0 errors); by completion time alone: " \
      "no lasting effect: #{Arena::Verdicts::Profile.analyse(profile, calm)["recoveries"].first["verdict_reason"]}", r["verdict_reason"]
    edge = with_after.call(after.call(180, 20))
    assert_equal "no lasting effect", Arena::Verdicts::Profile.analyse(profile, edge)["recoveries"].first["verdict"], "90% answered: recovered"
    short = with_after.call(after.call(179, 21))
    assert_equal "not recovered", Arena::Verdicts::Profile.analyse(profile, short)["recoveries"].first["verdict"]
    assert_equal "no lasting effect", Arena::Verdicts::Profile.own_requests({"verdict" => "no lasting effect"}, nil, 200)["verdict"], "no figures: as measured"
  end

  # Slices with no response say nothing about the p99: a server that answers
  # nothing for a while after the spike is not back.
  def test_the_p99_is_not_back_over_slices_that_answered_nothing
    profile = Arena::Load::Profile.parse("hold 100/s 2s, spike 400/s 1s, hold 100/s 2s")
    r = Arena::Verdicts::Profile.analyse(profile, load(dip: 0, slow: 0, empty_after: 8))["recoveries"].first
    assert_in_delta 0.9, r["p99_back_s"], 0.01, r.inspect
  end

  def test_the_peak_rate_is_the_busiest_window_as_long_as_the_spike
    l = load(dip: 0, slow: 0)
    assert_in_delta 400.0, Arena::Verdicts::Profile.peak_rate(l, 2.0, 5.0, 1.0), 0.01
    assert_in_delta 400.0, Arena::Verdicts::Profile.peak_rate(l, 2.0, 5.0, 0.05), 0.01, "at least one slice"
    assert_in_delta 100.0, Arena::Verdicts::Profile.peak_rate(l, 3.0, 5.0, 1.0), 0.01
  end
end
