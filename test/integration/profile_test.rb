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
    stages.each { |s| assert_in_delta s["asked_rps"], s["sent_rps"], s["asked_rps"] * 0.05, s.inspect }
    starts = m.dig("load", "stages").map { |s| s["start_s"] }
    assert_equal starts.sort, starts, "in order"
    assert_equal [1.0, 2.0, 2.5], m["extra"]["marks"].map { |v| v["x"] }
    assert_equal "spike 600/s 0.5s", m["extra"]["recoveries"].first["spike"]
    assert_match(/profile: ramp 0\.\.200\/s 1s: .*after spike 600\/s 0\.5s: /, out.stdout)
    bad = arena("run", "--servers", "puma", "--scenario", "profile", "--profile", "hold 5/s")
    assert_equal 2, bad.status.exitstatus
    assert_match(/--profile "hold 5\/s": "hold 5\/s" is not a stage/, bad.stderr)
  end
end
