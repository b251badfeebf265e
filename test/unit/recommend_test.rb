# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Recommendations from real runs: each pick cites its figures; a use case the
# run did not measure says what to run.
class RecommendTest < Minitest::Test
  FIXTURES = File.expand_path("../fixtures/results", __dir__)
  PUMA = "puma:workers=2,threads=2,preload=false"
  UNICORN = "unicorn:workers=2,preload=true,timeout=60"
  FALCON = "falcon:count=2,model=forked"

  def recommend(fixture)
    document = Arena::Report::Source.open(File.join(FIXTURES, fixture)).view
    Arena::Report::Recommend.new(document).call.to_h { |r| [r.use_case, r] }
  end

  def test_steady_run_picks_with_figures_and_names_what_to_run_for_the_rest
    r = recommend("steady")
    api = r["fast request/response API"]
    assert_equal PUMA, api.pick
    assert_equal "5,651 good req/s (4,363–6,938 over 2 runs), p99 11.8ms, CPU 38% on server; " \
      "runner-up #{FALCON} 3,982 good req/s (3,831–4,133 over 2 runs), p99 14.2ms, CPU 31%: 1.42x the goodput", api.because
    assert_equal PUMA, r["CPU-bound work"].pick
    assert_equal FALCON, r["limited memory or many small apps"].pick
    # Unicorn (1,592 req/s, under half of Puma's 5,651) is smaller-serving: weighed out, not picked.
    assert_equal "PSS peak 50.8 MiB (RSS 99.2 MiB) at 3,982 good req/s on server with 2 workers, among the servers within " \
      "50% of the best goodput (5,651 req/s); runner-up #{PUMA} 56.7 MiB with 2 workers at 5,651 req/s: 1.12x the memory; " \
      "1 smaller-serving server(s) left out", r["limited memory or many small apps"].because
    assert_nil r["waiting on I/O or long requests"].pick
    assert_equal "arena run --workload sleep --scenario steady,rate", r["waiting on I/O or long requests"].run
    assert_equal "arena run --scenario crash,restart", r["surviving crashes and deploys"].run
    assert_equal "arena run --scenario slow-clients", r["slow clients without a proxy"].run
  end

  def test_sleep_workload_answers_the_io_case
    io = recommend("steady-again")["waiting on I/O or long requests"]
    assert_equal FALCON, io.pick
    # 16 responses in each run: too few for a p99, and the line says so.
    assert_match(/\A8\.0 good req\/s \(8\.0–8\.0 over 2 runs\), p99 n=16 too small, CPU 0% on sleep; runner-up #{Regexp.escape(PUMA)} 4\.0 good req\/s/o, io.because)
  end

  def test_scenario_run_ranks_resilience_and_slow_clients
    r = recommend("scenarios")
    resilience = r["surviving crashes and deploys"]
    assert_equal UNICORN, resilience.pick
    assert resilience.because.start_with?("worker killed: replaced, 0 errors after, back to 90% throughput in 2.0s; " \
      "usr2_quit restart: 0 failed requests, longest 60.7ms, dip 50.3%. runner-up #{PUMA}: ")
    slow = r["slow clients without a proxy"]
    assert_equal PUMA, slow.pick
    assert_equal "kept 74% of its goodput beside 4 slow headers clients (13,324 → 9,849 req/s); runner-up #{UNICORN} kept 0%", slow.because
    # The run measured the server workload, but not in the steady scenario.
    assert_equal "arena run --workload server --scenario steady", r["fast request/response API"].run
    assert_equal "arena run --workload pi", r["CPU-bound work"].run
  end

  def test_overlapping_spreads_are_called_a_tie
    rows = [[1000, 900, 1100], [950, 800, 1000]].each_with_index.flat_map do |(_, lo, hi), i|
      [lo, hi].map do |rps|
        {"server" => "s#{i}", "workload" => "server", "scenario" => "steady", "variant" => "keep-alive",
         "load" => {"throughput_rps" => rps, "requests" => {"completed" => rps}, "latency_us" => {"count" => rps, "p99" => 1000}}}
      end
    end
    api = Arena::Report::Recommend.new(Arena::Results::Document.from_h({"measurements" => rows})).call.first
    assert_equal "s0", api.pick
    assert_includes api.because, "within noise (the spreads overlap): a tie"
  end

  def test_single_runs_ask_for_repeats
    api = recommend("older-schema")["fast request/response API"]
    assert_equal "6,938 good req/s, p99 13.5ms on server; runner-up #{FALCON} 3,831 good req/s, p99 14.0ms: 1.81x the goodput " \
      "(one run each: the noise is not measured)", api.because
    assert_equal "--repeat 3 to measure the spread", api.run
    assert_nil recommend("older-schema")["limited memory or many small apps"].pick
  end
end
