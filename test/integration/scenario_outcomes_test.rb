# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

# What a scenario reports when its server dies, restarts or is asked for
# something that does not exist: outcomes and counts, not rates. No figure
# here depends on the machine being quiet, so, unlike scenarios_test.rb
# (whose rate and latency tests these came from, with trust_test.rb's), this
# file runs beside others: a serial file adds its whole time to the lane.
class ScenarioOutcomesTest < Arena::ArenaCase
  def test_killing_webricks_only_process_is_reported_as_no_recovery
    outcome = run_ok("--servers", "webrick", "--scenario", "crash", "--workload", "server", "-c", "2", "-d", "3", "-w", "0.3")
    crash = find(outcome, "crash")["extra"]
    assert_equal "died", crash["outcome"], crash.inspect
    refute crash["recovered"]
    assert_operator find(outcome, "crash").dig("load", "errors", "connect_refused"), :>, 0
  end

  # Agoo has no master: after a crash the fresh start must still come up
  # (a fresh port), and every scenario after it must run: one server's
  # trouble never ends the run.
  def test_agoo_crash_then_restart_then_steady_measures_everything
    outcome = arena("run", "--servers", "agoo", "--scenario", "crash,restart,steady", "--workload", "server",
      "-c", "4", "-d", "1", "-w", "0.2")
    assert outcome.status.success?, outcome.describe
    scenarios = outcome.measurements.map { |m| m["scenario"] }
    # Rounds shuffle the order; every scenario must have run.
    assert_equal %w[crash restart steady], scenarios.uniq.sort, scenarios.inspect
  end

  def test_restart_reports_failed_requests_per_mechanism_and_unsupported
    outcome = run_ok("--servers", "puma:workers=2,threads=2 webrick", "--scenario", "restart", "--workload", "json", "-c", "4", "-d", "3", "-w", "0.3")
    %w[phased hot].each do |mechanism|
      m = find(outcome, "restart", mechanism)
      assert_equal m.dig("load", "errors", "total"), m.dig("extra", "failed_requests")
      assert m.dig("extra", "serving_after"), "#{mechanism}: serving after the restart"
      assert_match(/^puma\S*  restart #{mechanism}  #{m.dig("extra", "failed_requests")} failed, longest [\d.]+ m?s, dip -?[\d.]+%$/, outcome.stdout)
      assert_match(/restart #{mechanism}: #{m.dig("extra", "failed_requests")} failed requests/, outcome.report_md)
    end
    assert_match(/webrick has no zero-downtime restart/, find(outcome, "restart", "none").dig("extra", "unsupported"))
    assert_match(/^webrick  restart  unsupported: no zero-downtime restart Arena can trigger$/, outcome.stdout)
  end

  def test_scenario_bad_input
    out = arena("run", "--servers", "puma", "--scenario", "chaos")
    assert_equal 2, out.status.exitstatus
    assert_match(/unknown scenario "chaos"/, out.stderr)
    out = arena("run", "--servers", "puma", "--slo", "0")
    assert_equal 2, out.status.exitstatus
    assert_match(/--slo must be between/, out.stderr)
  end
end
