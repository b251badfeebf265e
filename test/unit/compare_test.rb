# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Real runs compared: steady/steady-again (each measurement repeated twice:
# too few for the test) and gate-cluster-threads-8/-4 (three repeats a side),
# and made-up runs whose truth is known.
class CompareTest < Minitest::Test
  cover "Arena::Report::Compare*"

  FIXTURES = File.expand_path("../fixtures/results", __dir__)
  PUMA = "puma:workers=2,threads=2,preload=false"
  UNICORN = "unicorn:workers=2,preload=true,timeout=60"
  CLUSTER = "puma:workers=2,threads=8,preload=false -> puma:workers=2,threads=4,preload=false"

  def view(name) = Arena::Report::Source.open(File.join(FIXTURES, name)).view

  def compare(a = "steady", b = "steady-again") = Arena::Report::Compare.new(view(a), view(b))

  def change(server, workload, metric, cmp = compare)
    row = cmp.rows.find { |r| r.key == [server, workload, "steady", "keep-alive"] }
    row.changes.find { |c| c.metric == metric }
  end

  # Two repeats a side: the change is shown, marked *, and called nothing.
  def test_with_fewer_than_three_runs_a_side_nothing_is_called_real
    c = change(PUMA, "server", "req/s")
    assert_in_delta 5650.5, c.a, 0.01
    assert_in_delta 14_660.25, c.b, 0.01
    assert_in_delta 1.595, c.delta, 0.001
    refute c.measured
    refute c.real?
    refute c.noise?
    text = compare.render
    assert_match(/\| #{Regexp.escape(PUMA)} +\| server   \| steady keep-alive \| 5,651 -> 14,660 \| \+159\.5%\* \|/o, text)
    assert_includes text, "only in B: #{PUMA} sleep steady keep-alive; #{UNICORN} sleep steady keep-alive; falcon:count=2,model=forked sleep steady keep-alive\n"
    assert_includes text, "a change is real where Welch's t on log figures over the runs of each side says so at 0.05; " \
      "else \"not distinguishable\"; * fewer than 3 runs a side: not tested\n"
  end

  def test_three_runs_a_side_are_tested
    cmp = compare("gate-cluster-threads-8", "gate-cluster-threads-4")
    sleep = change(CLUSTER, "sleep", "req/s", cmp)
    assert sleep.noise?, "10-15 req/s against 8: p=0.086"
    pss = change(CLUSTER, "server", "PSS", cmp)
    assert pss.real?
    assert_in_delta 0.038, pss.difference.p_value, 0.001
    text = cmp.render
    assert_includes text, "|    11.0 -> 8.0 | -27.3% not distinguishable |"
    assert_includes text, "| 59.8 MiB -> 55.3 MiB |           -7.6% (p=0.038) |"
  end

  def one_run(rps, p99, pss, server: "puma")
    {"server" => server, "workload" => "server", "scenario" => "steady", "variant" => "keep-alive",
     "load" => {"throughput_rps" => rps, "duration_s" => 1.0, "requests" => {"completed" => rps}, "latency_us" => {"count" => rps, "p99" => p99}},
     "probes" => {"pss_peak_kb" => pss}}
  end

  def doc(*runs) = Arena::Results::Document.from_h({"measurements" => runs.flatten})

  # The issue: `arena compare` called a change between identical runs real
  # 48.5% of the time at n=1. Simulated identical servers (5% noise per
  # run), 3 runs a side: called real at most at the test's level.
  def test_identical_runs_are_rarely_called_real
    rng = Random.new(11)
    noisy = -> { 1000 * Math.exp(0.05 * Math.sqrt(-2 * Math.log(1 - rng.rand)) * Math.cos(2 * Math::PI * rng.rand)) }
    real = Array.new(300) do
      a = doc(Array.new(3) { one_run(noisy.call, 2000, 50_000) })
      b = doc(Array.new(3) { one_run(noisy.call, 2000, 50_000) })
      Arena::Report::Compare.new(a, b).rows.first.changes.first.real?
    end.count(true)
    assert_operator real, :<=, 15 + 7, "#{real} of 300 identical pairs called real (level 0.05: 15)"
  end

  def test_a_clear_change_with_three_runs_is_real
    a = doc(one_run(1000, 2000, 50_000), one_run(1010, 2100, 50_000), one_run(990, 1900, 50_000))
    b = doc(one_run(1500, 2000, 50_000), one_run(1490, 2100, 50_000), one_run(1510, 1900, 50_000))
    rps, p99, pss = Arena::Report::Compare.new(a, b).rows.first.changes
    assert rps.real?
    assert_in_delta 0.5, rps.delta, 1e-9
    refute p99.real?
    assert_equal 0.0, p99.delta
    assert pss.noise?, "identical PSS: p=1"
    assert_includes Arena::Report::Compare.new(a, b).render, "| 1,000 -> 1,500 | +50.0% (p=2.4e-06) |"
  end

  def test_a_zero_base_has_no_change
    a = doc(one_run(1000, 2000, 0), one_run(1000, 2000, 0), one_run(1000, 2000, 0))
    pss = Arena::Report::Compare.new(a, a).rows.first.changes.last
    assert_nil pss.delta
    refute pss.real?
    refute pss.noise?
    assert_includes Arena::Report::Compare.new(a, a).render, "|     - -> - |    n/a |"
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
