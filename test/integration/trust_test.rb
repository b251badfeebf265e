# frozen_string_literal: true

# test: serial (rates compared across servers, which a test file beside them distorts)

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
  def summaries(outcome, scenario) = outcome.measurements.select { |m| m["scenario"] == scenario && m["summary"] }

  # Behind nginx, a dead Thin turns into fast 502s. They are errors: the
  # crash run's goodput must be below the steady run's, never above it.
  def test_a_dead_server_behind_nginx_is_not_faster_than_a_live_one
    skip "nginx is not installed" unless Arena::Fronts::Nginx.binary
    outcome = arena("run", "--servers", "thin", "--front", "nginx", "--scenario", "steady,crash", "--workload", "server",
      "-c", "8", "-d", "1", "-w", "0.2")
    steady = summaries(outcome, "steady").first.fetch("summary")
    crash = summaries(outcome, "crash").first.fetch("summary")
    assert_operator crash["error_pct"], :>, 1, crash.inspect
    assert_includes crash["flags"], "errors"
    assert_operator crash["good_rps"], :<, steady["good_rps"], [steady, crash].inspect
  end
end
