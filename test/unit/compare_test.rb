# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Two real runs of the same three servers (each measurement repeated twice):
# on this noisy two-core machine some changes are real, others within the
# min-max spread of the repeats.
class CompareTest < Minitest::Test
  FIXTURES = File.expand_path("../fixtures/results", __dir__)
  PUMA = "puma:workers=2,threads=2,preload=false"
  UNICORN = "unicorn:workers=2,preload=true,timeout=60"

  def compare
    a = Arena::Report::Source.open(File.join(FIXTURES, "steady")).view
    b = Arena::Report::Source.open(File.join(FIXTURES, "steady-again")).view
    Arena::Report::Compare.new(a, b)
  end

  def change(server, workload, metric)
    row = compare.rows.find { |r| r.key == [server, workload, "steady", "keep-alive"] }
    row.changes.find { |c| c.metric == metric }
  end

  def test_a_change_beyond_the_spread_of_the_repeats_is_real
    c = change(PUMA, "server", "req/s")
    assert_in_delta 5650.5, c.a, 0.01
    assert_in_delta 14_660.25, c.b, 0.01
    assert_in_delta 1.595, c.delta, 0.001
    assert c.measured
    refute c.noise?
  end

  def test_a_change_within_the_spread_of_the_repeats_is_noise
    c = change(UNICORN, "server", "req/s")
    assert_in_delta 1.498, c.delta, 0.001
    assert_in_delta 1.625, c.band, 0.001 # run A's repeats: 299 and 2,886 req/s
    assert c.noise?
  end

  def test_rendered_table_marks_noise_and_lists_rows_in_one_run_only
    text = compare.render
    assert_match(/\| #{Regexp.escape(UNICORN)} \| server   \| steady keep-alive \|  1,592 -> 3,977 \| \+149\.8% noise \(±162\.5%\) \|/o, text)
    assert_match(/\| #{Regexp.escape(PUMA)} +\| server   \| steady keep-alive \| 5,651 -> 14,660 \| +\+159\.5% \|/o, text)
    assert_includes text, "only in B: #{PUMA} sleep steady keep-alive; #{UNICORN} sleep steady keep-alive; falcon:count=2,model=forked sleep steady keep-alive\n"
    assert_includes text, "a default band of ±5.0% is used (marked *)"
  end

  def one_run(rps, p99, pss)
    Arena::Results::Document.from_h({"measurements" => [{"server" => "puma", "workload" => "server", "scenario" => "steady", "variant" => "keep-alive",
                                                         "load" => {"throughput_rps" => rps, "duration_s" => 1.0, "requests" => {"completed" => rps}, "latency_us" => {"count" => rps, "p99" => p99}}, "probes" => {"pss_peak_kb" => pss}}]})
  end

  def test_without_repeats_the_default_band_is_used_and_said
    compare = Arena::Report::Compare.new(one_run(1000, 2000, 50_000), one_run(1030, 3000, 50_000))
    rps, p99, pss = compare.rows.first.changes
    refute rps.measured
    assert rps.noise?
    refute p99.noise?
    assert pss.noise?
    assert_includes compare.render, "| puma   | server   | steady keep-alive | 1,000 -> 1,030 | +3.0% noise (±5.0%*) | 2.0ms -> 3.0ms | +50.0%* |"
  end

  def test_default_band_can_be_set
    compare = Arena::Report::Compare.new(one_run(1000, 2000, 50_000), one_run(1030, 2000, 50_000), default_noise: 0.01)
    refute compare.rows.first.changes.first.noise?
  end

  def test_compare_command_prints_both_sources
    out = StringIO.new
    status = Arena::CLI.new(["compare", File.join(FIXTURES, "steady"), File.join(FIXTURES, "steady-again")], out: out, err: StringIO.new).run
    assert_equal 0, status
    assert_match(%r{\AA: .*/steady/results.json\nB: .*/steady-again/results.json\n\+-}, out.string)
  end

  def test_compare_needs_two_runs
    err = StringIO.new
    assert_equal 2, Arena::CLI.new(["compare", FIXTURES], out: StringIO.new, err: err).run
    assert_equal "arena: #{Arena::Commands::Compare::USAGE}\n", err.string
  end
end
