# frozen_string_literal: true

# test: light (its servers sleep 1 s a request: 11 s of CPU in 85 s, so it runs beside the serial files)

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

# Rate sweeps of the built-in 1 s /sleep on Unicorn: the plan fits its
# budget, and one level does not inherit the last one's queue. Every time
# judged here is a multiple of a 1 s sleep, which a test file running beside
# this one does not stretch (the CPU it takes is not what a sleep waits on),
# so this file is not `# test: serial`: a serial file adds its whole time to
# the lane (these two were a minute and a half of scenarios_test and
# trust_test).
class SleepRateTest < Arena::ArenaCase
  # A 1 s endpoint served by 2 workers (about 2 req/s): the sweep plans its
  # levels and samples to its budget, and fractional rates keep every level
  # its own rate (a whole-number rate made 10% and 25% both 1 req/s).
  # --max-time bounds the whole run (boot, baseline and stop included), so
  # the sweep gets what is left of 60 s: about 45 s here.
  def test_a_1s_endpoint_sweep_finishes_inside_max_time_with_a_different_rate_per_level
    outcome = arena("run", "--servers", "unicorn:workers=2", "--workload", "sleep", "--scenario", "rate", "-c", "2", "-d", "1", "-w", "0.2", "--max-time", "60")
    assert outcome.status.success?, outcome.describe
    curve = find(outcome, "rate", "curve")["extra"]
    assert_operator curve["sweep_s"], :<=, 50
    assert_equal curve["planned_levels"], curve["measured_levels"], "the planned sweep fits its budget"
    rates = outcome.measurements.filter_map { |m| m.dig("extra", "target_rps") if m["scenario"] == "rate" && m["variant"] != "curve" }
    assert_operator rates.size, :>=, 3
    assert_equal rates.uniq, rates
    assert rates.any? { |r| r != r.round }, "fractional rates: #{rates}"
  end

  # The closed maximum on /sleep leaves requests queued inside Unicorn; the
  # next level must wait for them (settle) instead of inheriting their wait.
  # 30 s: the rate plan keeps back its overhead before a level, and a level of
  # a 1 s endpoint needs its minimum requests; in 12 s none fitted.
  def test_unicorn_sleep_rate_levels_do_not_inherit_the_last_ones_queue
    outcome = arena("run", "--servers", "unicorn:workers=2", "--scenario", "rate", "--workload", "sleep",
      "-c", "8", "-d", "1", "-w", "0", "--max-time", "30", timeout: 180)
    assert outcome.status.success?, outcome.describe
    levels = outcome.measurements.select { |m| m["scenario"] == "rate" && m["variant"].to_s.end_with?("%") }
    refute_empty levels
    levels.each do |m|
      assert_operator m.dig("summary", "p50_us"), :<, 1_500_000, "#{m["variant"]}: p50 #{m.dig("summary", "p50_us")} us for a 1 s sleep"
      refute_includes m.dig("summary", "flags"), "did-not-settle", m["variant"]
    end
    # The closed maximum left about six 1 s sleeps queued behind two workers:
    # the first level waited for them (settle did wait, not merely say so).
    assert_operator levels.first.dig("summary", "settled_s"), :>=, 0.5, levels.first["summary"].inspect
    curve = outcome.measurements.find { |m| m["scenario"] == "rate" && m["kind"] == "summary" }
    refute_nil curve, "the curve summary"
    slo = curve.dig("extra", "slo_ms")
    assert_operator slo, :>=, 3000, "relative SLO: 3 x unloaded p99 of a 1 s sleep, not 100 ms (#{slo})"
  end

  # A breakpoint search on 1 s sleeps (from scenarios_test.rb: it judges
  # only multiples of a 1 s sleep, so it need not run alone).
  def test_breakpoint_stops_at_the_first_level_with_errors_or_slo_breach
    outcome = run_ok("--servers", "puma:workers=0,threads=1", "--scenario", "breakpoint", "--workload", "sleep", "--step", "2", "--max-connections", "8", "--slo", "1500", "-d", "4", "-w", "0.2", "--timeout", "10")
    summary = find(outcome, "breakpoint", "summary")["extra"]
    # One thread serving 1 s sleeps: one connection is clean (p99 about 1 s);
    # with two each request waits for the other's, so p99 is about 2 s (the
    # run must outlast that wait).
    assert_equal 2, summary["broke_at_connections"], summary.inspect
    assert_equal 1, summary["last_clean_connections"]
  end
end
