# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"
require "arena"

# What "numbers a sceptic can trust" means against real servers: errors are
# never throughput. (One measurement not leaking into the next is judged on
# 1 s sleeps, which a file beside it does not distort: sleep_rate_test.rb;
# one server's trouble never ending the run judges no rate: Agoo's crash,
# restart and steady are in scenario_outcomes_test.rb.)
class TrustTest < Arena::ArenaCase
  SERVER = "thin"

  def summaries(outcome, scenario) = outcome.measurements.select { |m| m["scenario"] == scenario && m["summary"] }

  # Behind nginx, a dead Thin turns into fast 502s. They are errors, never
  # goodput: once Thin is killed (a third into the run; nothing restarts
  # it), no 100 ms slice of the timeline holds a good response, however many
  # 502s it holds. (Its goodput against the steady run's is a race between
  # two runs, which a busy machine can decide either way.)
  def test_a_dead_server_behind_nginx_serves_no_good_response_only_errors
    skip "nginx is not installed" unless Arena::Fronts::Nginx.binary
    outcome = arena("run", "--servers", SERVER, "--front", "nginx", "--scenario", "crash", "--workload", "server",
      "-c", "8", "-d", "1", "-w", "0.2")
    crash = summaries(outcome, "crash").first
    summary = crash.fetch("summary")
    assert_operator summary["error_pct"], :>, 1, summary.inspect
    assert_includes summary["flags"], "errors"
    killed_at = crash.dig("extra", "event_at_s")
    timeline = crash.dig("load", "timeline")
    at = ->(slice) { slice["start_ms"] / 1000.0 }
    before, after = timeline.partition { |slice| at.call(slice) < killed_at }
    assert_operator before.sum { |slice| slice["good"] }, :>, 0, "Thin served before it was killed: #{before}"
    # The requests in flight at the kill end within a slice or two.
    late = after.select { |slice| at.call(slice) >= killed_at + 0.3 }
    refute_empty late, timeline.inspect
    assert_equal [0], late.map { |slice| slice["good"] }.uniq, "good responses after the kill at #{killed_at} s: #{late}"
    assert_operator late.sum { |slice| slice["errors"] }, :>, 0, late.inspect
  end
end
