# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The arithmetic behind soak and worker-cost, on made-up samples whose
# answer is known.
class MemoryAnalysisTest < Minitest::Test
  cover "Arena::Scenarios::SoakAnalysis*"
  cover "Arena::Stats::LinearFit*"

  Fit = Arena::Stats::LinearFit
  Analysis = Arena::Scenarios::SoakAnalysis

  def test_least_squares_recovers_a_line_and_says_how_well_it_fits
    fit = Fit.of([[1, 110], [2, 160], [4, 260]])
    assert_in_delta 50.0, fit.slope, 1e-9
    assert_in_delta 60.0, fit.intercept, 1e-9
    assert_in_delta 1.0, fit.r2, 1e-9
    noisy = Fit.of((0..99).map { |t| [t, 1000 + 2 * t + ((t % 2).zero? ? 5 : -5)] })
    assert_in_delta 2.0, noisy.slope, 0.01
    assert_operator noisy.r2, :<, 1.0
    assert_in_delta 5.0, noisy.sigma, 0.2
    assert_nil Fit.of([[1, 5]])
    assert_nil Fit.of([[1, 5], [1, 6]])
  end

  def sample(t, pss) = Arena::Results::MemorySample.new(t: t, procs: 1, pss_kb: pss, rss_kb: pss, uss_kb: pss,
    processes: [{"pid" => 7, "pss_kb" => pss, "rss_kb" => pss, "uss_kb" => pss}])

  def measurement(samples)
    Arena::Results::Measurement.new(server: "puma", workload: "leak", scenario: "soak", variant: "soak",
      probes: Arena::Results::Memory.new(samples: samples), extra: {})
  end

  # 64 KiB per request at 100 req/s: 6400 KiB/s, 375 MiB/min.
  def test_a_steady_leak_is_growing_at_its_rate
    samples = (0..100).map { |i| sample(i * 0.2, 30_000 + (6400 * i * 0.2).round + ((i % 3) * 200)) }
    x = Analysis.call(measurement(samples), rate: 100, closed_max: nil)
    assert_equal "growing", x["verdict"]
    assert_in_delta 375.0, x["slope_mib_per_min"], 2
    assert_operator x["r2"], :>, 0.99
    assert_equal 7, x["processes"].first["pid"]
  end

  # Warm-up growth, then a flat line with GC's sawtooth on it.
  def test_growth_that_stops_is_a_plateau
    samples = (0..150).map do |i|
      t = i * 0.2
      base = (t < 10) ? 30_000 + 800 * t : 38_000
      sample(t, (base + ((i % 5) * 150)).round)
    end
    x = Analysis.call(measurement(samples), rate: 100, closed_max: nil)
    assert_equal "plateaued", x["verdict"], x.inspect
    assert_operator x["slope_mib_per_min"], :>, 0, "the whole run still rose"
  end

  # Agoo here: both processes segfaulted under load, nothing respawned them.
  def test_a_tree_that_died_is_said_so_not_fitted_to_zero
    samples = (0..40).map { |i| sample(i * 0.5, 40_000 + i) }
    samples += (41..60).map { |i| Arena::Results::MemorySample.new(t: i * 0.5, procs: 0, pss_kb: 0, rss_kb: 0, uss_kb: 0) }
    x = Analysis.call(measurement(samples), rate: 3, closed_max: nil)
    assert_equal "died at 20.5 s", x["verdict"]
    assert_equal 40_040, x["pss_last_kb"]
    assert_operator x["slope_mib_per_min"], :>, 0
  end

  # The issue's soak: 5 MiB/min on 200 MiB over 300 s, GC's sawtooth on it.
  # The old rule's hidden floor (5% of USS over the last third) called it
  # plateaued while printing +4.91 MiB/min.
  def test_a_slow_leak_on_a_large_heap_is_growing_and_the_floor_is_said
    rng = Random.new(5)
    samples = (0..300).map do |t|
      kb = (200 * 1024 + 5 * 1024 / 60.0 * t + 4096 * ((t % 10) / 10.0) + 300 * (rng.rand - 0.5)).round
      sample(t.to_f, kb)
    end
    x = Analysis.call(measurement(samples), rate: 100, closed_max: nil)
    assert_equal "growing", x["verdict"], x.inspect
    assert_in_delta 5.0, x["slope_mib_per_min"], 0.3
    assert_operator x["floor_mib_per_min"], :<, 5.0
    flat = (0..300).map { |t| sample(t.to_f, (200 * 1024 + 4096 * ((t % 10) / 10.0) + 300 * (rng.rand - 0.5)).round) }
    x = Analysis.call(measurement(flat), rate: 100, closed_max: nil)
    assert_equal "plateaued", x["verdict"]
    assert_equal format("no growth above %.2f MiB/min detected (this soak's floor)", x["floor_mib_per_min"]), x["verdict_reason"]
  end

  def test_too_few_samples_are_not_judged
    x = Analysis.call(measurement([sample(0, 1), sample(1, 2)]), rate: 1, closed_max: nil)
    assert_equal "too short to judge", x["verdict"]
  end

  def test_worker_counts_are_powers_of_two_up_to_the_bound
    assert_equal [1, 2, 4], Arena::Scenarios::WorkerCost.counts(4)
    assert_equal [1, 2, 4, 6], Arena::Scenarios::WorkerCost.counts(6)
    assert_equal [1], Arena::Scenarios::WorkerCost.counts(1)
  end
end
