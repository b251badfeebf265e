# frozen_string_literal: true

# test: serial (rates compared across servers, which a test file beside them distorts)

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"
require "arena"

# What "numbers a sceptic can trust" means against real servers: errors are
# never throughput, and one measurement does not leak into the next. (One
# server's trouble never ending the run judges no rate: Agoo's crash, restart
# and steady are in scenario_outcomes_test.rb, which runs beside other files.)
class TrustTest < Arena::ArenaCase
  def summaries(outcome, scenario) = outcome.measurements.select { |m| m["scenario"] == scenario && m["summary"] }

  # Behind nginx, a dead Thin turns into fast 502s. They are errors: the
  # crash run's goodput must be below the steady run's, never above it.
  def test_a_dead_server_behind_nginx_is_not_faster_than_a_live_one
    skip "nginx is not installed" unless Arena::Proxy::Nginx.binary
    outcome = arena("run", "--servers", "thin", "--front", "nginx", "--scenario", "steady,crash", "--workload", "server",
      "-c", "8", "-d", "1", "-w", "0.2")
    steady = summaries(outcome, "steady").first.fetch("summary")
    crash = summaries(outcome, "crash").first.fetch("summary")
    assert_operator crash["error_pct"], :>, 1, crash.inspect
    assert_includes crash["flags"], "errors"
    assert_operator crash["good_rps"], :<, steady["good_rps"], [steady, crash].inspect
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
end
