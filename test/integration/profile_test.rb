# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

# --scenario profile on Puma: the stages run in order at the rates asked.
class ProfileTest < Arena::ArenaCase
  def test_a_profile_runs_its_stages_in_order_at_the_asked_rates
    spec = "ramp 0..200/s 1s, hold 200/s 1s, spike 600/s 0.5s, hold 200/s 1.5s"
    out = arena("run", "--servers", "puma", "--scenario", "profile", "--workload", "server", "--profile", spec, "--rounds", "1", timeout: 120)
    assert out.status.success?, out.describe
    m = out.measurements.find { |x| x["scenario"] == "profile" }
    stages = m["extra"]["stages"]
    assert_equal ["ramp 0..200/s 1s", "hold 200/s 1s", "spike 600/s 0.5s", "hold 200/s 1.5s"], stages.map { |s| s["label"] }
    # The engine keeps the schedule: what it sent and what it dropped (every
    # connection held by a backlog) is what was asked. Below capacity it
    # sends it all; after the spike, a crowded Puma's backlog may still hold
    # the connections (a fresh-check at 583da4b sent 172/s, dropped 42).
    stages.zip([1.0, 1.0, 0.5, 1.5]).each do |s, seconds|
      assert_in_delta s["asked_rps"], s["sent_rps"] + s["dropped"] / seconds, s["asked_rps"] * 0.05, s.inspect
    end
    stages.first(2).each { |s| assert_in_delta s["asked_rps"], s["sent_rps"], s["asked_rps"] * 0.05, s.inspect }
    starts = m.dig("load", "stages").map { |s| s["start_s"] }
    assert_equal starts.sort, starts, "in order"
    assert_equal [1.0, 2.0, 2.5], m["extra"]["marks"].map { |v| v["x"] }
    assert_equal "spike 600/s 0.5s", m["extra"]["recoveries"].first["spike"]
    # The terminal: the spike's verdict and what followed; report.md: each stage too.
    assert_match(/^puma\S*  profile  spike 600\/s 0\.5s: #{r_words(m)}$/, out.stdout)
    assert_match(/profile: ramp 0\.\.200\/s 1s: .*; spike 600\/s 0\.5s: \w+.*throughput after it: /, out.report_md)
    bad = arena("run", "--servers", "puma", "--scenario", "profile", "--profile", "hold 5/s")
    assert_equal 2, bad.status.exitstatus
    assert_match(/--profile "hold 5\/s": "hold 5\/s" is not a stage/, bad.stderr)
  end

  # A spike over capacity: Puma with one thread on a 20 ms sleep serves about
  # 50/s; a spike of 150/s for 0.5 s queues, and with a 0.5 s response
  # timeout (a client's, a proxy's) the requests that wait longer are shed.
  def test_a_spike_over_capacity_is_said_queued_and_shed_with_the_drain_time
    file = File.join(@tmp, "requests.yml")
    File.write(file, %(requests:\n  sleep20: {path: "/sleep?ms=20", expect_body: "slept 20 ms"}\n))
    out = arena("run", "--servers", "puma:workers=0,threads=1", "--scenario", "profile", "--requests", file, "--timeout", "0.5",
      "--profile", "hold 20/s 1s, spike 150/s 0.5s, hold 20/s 3s", "--rounds", "1", timeout: 120)
    assert out.status.success?, out.describe
    m = out.measurements.find { |x| x["scenario"] == "profile" }
    before, spike, = m.dig("load", "stages")
    assert_equal 0, before["errors"], before.inspect
    r = m.dig("extra", "recoveries").first
    assert_equal "queued and shed", r["spike_verdict"], r.inspect
    assert_operator spike["errors"], :>, 10, spike.inspect
    # Failed requests are shed; any still waiting at the run's end are cut off, not shed.
    assert_match(/\Aasked 150\/s for 0\.5 s, served at most (\d+(\.\d)?)\/s; its requests' p90 .+ before \(x[\d.]+\); #{spike["errors"]} of 75 shed \(errors: [a-z_, ]*timeout/, r["spike_reason"])
    assert_operator r["spike_reason"][/served at most ([\d.]+)/, 1].to_f, :<, 90, "one thread on 20 ms serves ~50/s: #{r["spike_reason"]}"
    drained = r["spike_reason"][/the queue drained \(p99 back to its level before\) ([\d.]+) s after the spike/, 1]
    assert(drained ? (drained.to_f - r["p99_back_s"]).abs < 0.051 : r["p99_back_s"].nil?, "the drain time is the p99's return: #{r.inspect}")
    assert_match(/^puma\S*  profile  spike 150\/s 0\.5s: queued and shed, then #{Regexp.escape(r["verdict"])}$/, out.stdout)
    assert_match(/sleep20 profile: .*spike 150\/s 0\.5s: queued and shed: /, out.report_md)
  end

  # The first spike's verdict and the recovery's, as the terminal says them.
  def r_words(m)
    r = m.dig("extra", "recoveries").first
    Regexp.escape([r["spike_verdict"], r["verdict"]].compact.join(", then "))
  end
end
