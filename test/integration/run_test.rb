# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

class RunTest < Arena::ArenaCase
  # No warm-up to a steady state (up to 2 s a measurement at -d 1) and no
  # round lengthened to hold 2,000 requests: no test here judges a rate,
  # only what was measured, recorded and left behind.
  SHORT = %w[-c 4 -d 1 -w 0.3 --warmup-max 0 --round-requests 0].freeze

  def run_servers(servers, *extra)
    outcome = arena("run", "--servers", servers, *SHORT, *extra)
    assert outcome.status.success?, outcome.describe
    outcome
  end

  def test_puma_single_and_cluster_are_measured_and_recorded
    outcome = run_servers("puma:workers=0,threads=4 puma:workers=2,threads=2", "--workload", "server,primes")
    doc = outcome.results
    assert_equal "arena-results/1", doc["schema"]
    assert doc["complete"]
    assert_equal %w[ok ok], doc["servers"].map { |s| s["status"] }
    assert_includes doc["servers"][1]["command"], "-w"
    assert_equal 4, outcome.measurements.size
    outcome.measurements.each do |m|
      assert_operator m.dig("load", "requests", "completed"), :>, 0, m["server"]
      assert_equal 0, arena_errors(m), m["server"]
      assert_operator m.dig("probes", "pss_peak_kb"), :>, 1000
      assert_operator m.dig("load", "timeline").size, :>=, 1
    end
    cluster = outcome.measurements.find { |m| m["server"].start_with?("puma:workers=2") }
    assert_equal 3, cluster.dig("probes", "procs_max"), "master and two workers sampled"
    %w[cpu_model cores kernel ruby yjit engine_version pinning].each { |k| assert doc["environment"].key?(k), k }
    assert_match(/req\/s/, outcome.stdout)
    # A tidy run directory: the reports on top, the engine's raw documents in one folder.
    top = Dir.children(outcome.dir)
    assert_includes top, "report.md"
    assert_includes top, "report.html"
    assert_empty top.grep(/\Aengine/), "the engine's files are in raw/, not beside the reports: #{top.sort}"
    assert File.file?(File.join(outcome.dir, "raw", "engine-1.json")), "the engine's first document in raw/"
    assert File.file?(File.join(outcome.dir, "raw", "engine.log")), "the engine's log in raw/"
  end

  # Unicorn closes every connection: with keep-alive asked for, the engine must
  # reconnect and count nothing as an error.
  def test_unicorn_with_keep_alive_on_shows_zero_errors
    outcome = run_servers("unicorn:workers=2", "--keep-alive", "on")
    m = outcome.measurements.first
    assert_equal 0, m.dig("load", "errors", "total"), m["load"]["errors"].inspect
    assert_operator m.dig("load", "connections", "opened"), :>=, m.dig("load", "requests", "completed") * 0.9
  end

  def test_falcon_is_measured
    outcome = run_servers("falcon", "--workload", "json")
    assert_operator outcome.measurements.first.dig("load", "requests", "completed"), :>, 0
  end

  def test_unix_socket_bind_and_keep_alive_both
    outcome = run_servers("puma:workers=0", "--bind", "unix", "--keep-alive", "both", "--workload", "json")
    assert_equal %w[keep-alive close], outcome.measurements.map { |m| m["variant"] }
    bind = outcome.results["servers"].first["bind"]
    assert_equal "unix", bind["kind"]
    refute File.exist?(bind["path"]), "socket file removed"
  end

  # Copy-on-write pages of a preloaded cluster are shared: summed RSS counts
  # them once per worker, PSS once in all.
  def test_pss_of_a_preloaded_cluster_is_well_below_summed_rss
    outcome = run_servers("puma:workers=4,threads=1,preload=true", "--workload", "server")
    probes = outcome.measurements.first["probes"]
    assert_equal 5, probes["procs_max"]
    assert_operator probes["pss_peak_kb"], :<, 0.7 * probes["rss_peak_kb"], probes.slice("pss_peak_kb", "rss_peak_kb").inspect
  end

  def test_reps_reports_siege_fields_for_exact_work
    outcome = run_servers("puma:workers=0", "--scenario", "reps", "-r", "25", "--workload", "server")
    m = outcome.measurements.first
    assert_equal 100, m.dig("load", "requests", "completed")
    assert_equal 100, m.dig("extra", "siege", "transactions")
    assert_equal 100.0, m.dig("extra", "siege", "availability_pct")
  end
end
