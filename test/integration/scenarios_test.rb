# frozen_string_literal: true

# test: serial (timing thresholds that another file running beside it would distort)

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

# Each scenario against real servers, with short loads, asserting the
# behaviour the scenario exists to show.
class ScenariosTest < Arena::ArenaCase
  def test_killing_a_puma_cluster_worker_yields_a_respawn_and_a_recovery_time
    outcome = run_ok("--servers", "puma:workers=2,threads=2", "--scenario", "crash", "--workload", "json", "-c", "4", "-d", "4", "-w", "0.3")
    crash = find(outcome, "crash")["extra"]
    assert_equal "replaced", crash["outcome"], crash.inspect
    assert crash["recovered"], crash.inspect
    assert_operator crash["recovery_s"], :<=, 4
    assert_match(/^puma\S*  crash  worker replaced, \d+ errors, (no lasting effect|recovered in [\d.]+ s), longest [\d.]+ m?s$/, outcome.stdout)
    assert_match(/crash: worker \d+ killed at .*replaced/, outcome.report_md)
  end

  # One Unicorn worker, two slow clients holding it: directly it starves;
  # behind nginx, which buffers whole requests, it keeps its throughput.
  def test_unicorn_starves_behind_slow_clients_directly_and_recovers_behind_nginx
    args = ["--servers", "unicorn:workers=1", "--scenario", "slow-clients", "--workload", "server", "-c", "4", "-d", "1.5", "-w", "0.3"]
    direct = find(run_ok(*args), "slow-clients", "with 2 slow headers")["extra"]
    proxied = find(run_ok(*args, "--front", "nginx"), "slow-clients", "with 2 slow headers")
    assert_operator direct["rps_ratio"], :<, 0.2, direct.inspect
    # nginx shares the server's core here, so "keeps" means most, not all.
    assert_operator proxied.dig("extra", "rps_ratio"), :>, 0.5, proxied["extra"].inspect
    assert_operator proxied.dig("front_probes", "procs_max"), :>=, 2, "nginx measured apart"
  end

  # A server that freezes 300 ms once a second: the open model, which times
  # requests from their intended start, must see the freeze in its p99; the
  # closed model at the knee of a few connections hides most of it.
  def test_open_model_p99_of_a_stalling_server_exceeds_the_closed_p99
    app = user_app(<<~RUBY)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      run lambda { |env|
        phase = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) % 1.0
        sleep(1.0 - phase) if phase > 0.7
        [200, {"content-type" => "text/plain", "content-length" => "2"}, ["ok"]]
      }
    RUBY
    # Levels of 1 s (-d 1): each holds one whole freeze, and this file runs
    # alone in the lane, so each second of its eight levels is the lane's.
    outcome = run_ok("--app", app, "--servers", "puma:workers=0,threads=1", "--scenario", "rate", "-c", "2", "-d", "1", "-w", "0.2")
    closed = find(outcome, "rate", "closed-max").dig("load", "latency_us", "p99")
    open = find(outcome, "rate", "50%").dig("load", "latency_us", "p99")
    assert_operator open, :>, closed, "open p99 #{open} us vs closed p99 #{closed} us"
    assert_operator open, :>, 100_000
    # The knee is the top of the run of levels held from the lowest up, by
    # the rule written out here (p99 within the SLO from >= 100 samples,
    # goodput within 1% of the target, errors and drops under 1%).
    x = find(outcome, "rate", "curve")["extra"]
    slo_us = x["slo_ms"] * 1000
    held = x["curve"].sort_by { |c| c["target_rps"] }.take_while do |c|
      c["samples"] >= 100 && c["p99_us"].between?(1, slo_us) && c["good_rps"] >= 0.99 * c["target_rps"] &&
        c["error_pct"] <= 1.0 && c["dropped"] <= 0.01 * c["target_rps"] * c["duration_s"]
    end
    assert_equal [held.last&.fetch("target_rps")], [x["knee_rps"]], x["curve"].inspect
    assert_equal x["curve"].size, x["levels"]
    # The terminal: the knee in one line (over several rounds, their median
    # and their words); report.md: the verdict with its reason.
    if outcome.measurements.count { |m| m["scenario"] == "rate" && m["kind"] == "summary" } == 1
      said = (x["verdict"] == "knee") ? "knee #{Arena::Support::Short.rate(x["knee_rps"])} req/s" : x["verdict"]
      assert_match(/^puma\S*  rate  #{Regexp.escape(said)}\b.* at p99 ≤ [\d.]+ ms/, outcome.stdout)
      assert_includes outcome.report_md, "rate: #{x["verdict"]}: #{x["verdict_reason"]}"
    else
      assert_match(/^puma\S*  rate  \w.* at p99 ≤ [\d.]+ ms/, outcome.stdout)
      assert_match(/rate over \d+ rounds: /, outcome.report_md)
    end
  end
end
