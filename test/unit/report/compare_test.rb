# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Real runs compared: steady/steady-again (each measurement repeated twice:
# too few for the test) and gate-cluster-threads-8/-4 (three repeats a side),
# and made-up runs whose truth is known.
class CompareTest < Minitest::Test
  cover "Arena::Report::Compare*"

  FIXTURES = File.expand_path("../../fixtures/results", __dir__)
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
    assert_includes text, "a change is real where Welch's t on log figures over the runs of each side says so at 0.05 (unpaired: A and B are separate runs, so the machine's drift between them stays in the test); " \
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

  def measured(server = "puma", rps: 1000, p50: 500, p90: 700, p99: 900, p999: 1500, count: 2000, errors: 0, pss: 50_000, rss: 90_000, variant: "keep-alive")
    {"server" => server, "workload" => "server", "scenario" => "steady", "variant" => variant,
     "load" => {"throughput_rps" => rps, "duration_s" => 1.0, "requests" => {"completed" => count}, "errors" => {"total" => errors},
                "latency_us" => {"count" => count, "p50" => p50, "p90" => p90, "p99" => p99, "p999" => p999}},
     "probes" => {"pss_peak_kb" => pss, "rss_peak_kb" => rss}}
  end

  def read(metric, **kw) = Arena::Verdicts::Comparison::READERS.fetch(metric).call(doc(measured(**kw)).measurements.first)

  # What a comparison and a gate read from a measurement, and where a figure is missing.
  def test_each_reader
    assert_equal 1000.0, read("good_rps")
    assert_equal 1000.0, read("rps", errors: 10)
    assert_equal [500.0, 700.0, 900.0, 1500.0], %w[p50 p90 p99 p999].map { |m| read(m) }
    assert_kind_of Float, read("p50")
    assert_nil read("p999", count: 999), "p99.9 needs 1,000 responses"
    assert_nil read("p99", count: 99)
    assert_nil read("p90", count: 9)
    assert_equal 900.0, read("p99", count: 100)
    assert_equal [50_000.0, 90_000.0], [read("pss"), read("rss")]
    assert_nil read("pss", pss: 0), "0 kB: not sampled"
    assert_nil read("rss", rss: 0)
    assert_equal [10.0, 0.498], [read("errors", errors: 10), read("error_pct", errors: 10)]
    bare = doc(measured.except("probes")).measurements.first
    assert_nil Arena::Verdicts::Comparison::READERS.fetch("pss").call(bare)
    assert_nil Arena::Verdicts::Comparison::READERS.fetch("rss").call(bare)
  end

  # A server whose config changed is paired by its name only when it is the
  # one config of that name on each side.
  def test_pairing_by_server_name
    a = doc(measured("puma:threads=8"), measured("unicorn:workers=2"), measured("falcon:count=1"), measured("falcon:count=2"))
    b = doc(measured("puma:threads=4"), measured("unicorn:workers=2"), measured("falcon:count=3"), measured("thin"))
    cmp = Arena::Report::Compare.new(a, b)
    assert_equal [["unicorn:workers=2", "server", "steady", "keep-alive"], ["puma:threads=8 -> puma:threads=4", "server", "steady", "keep-alive"]],
      cmp.pairs.map(&:key)
    assert_equal [1, 1], [cmp.pairs.last.a.size, cmp.pairs.last.b.size]
    assert_equal "puma:threads=8", cmp.pairs.last.a.first.server
    assert_equal "puma:threads=4", cmp.pairs.last.b.first.server
    assert_equal %w[falcon:count=1 falcon:count=2], cmp.only_a.map(&:first)
    assert_equal %w[falcon:count=3 thin], cmp.only_b.map(&:first)
    text = cmp.render
    assert_includes text, "only in A: falcon:count=1 server steady keep-alive; falcon:count=2 server steady keep-alive\n"
    assert_includes text, "only in B: falcon:count=3 server steady keep-alive; thin server steady keep-alive\n"
    assert_includes text, "| puma:threads=8 -> puma:threads=4 | server   | steady keep-alive | 1,000 -> 1,000 | +0.0%* | 900us -> 900us | +0.0%* | 48.8 MiB -> 48.8 MiB | +0.0%* |\n"
    none = Arena::Report::Compare.new(doc(measured("a")), doc(measured("b", variant: nil)))
    assert none.render.start_with?("no measurement in common\nonly in A: a server steady keep-alive\nonly in B: b server steady\n")
    assert_equal [], Arena::Report::Compare.new(doc(measured("a")), doc(measured("a"))).only_a
  end

  def test_a_drop_and_the_values_a_pair_holds
    a = doc(measured(rps: 1000), measured(rps: 1010), measured(rps: 990))
    b = doc(measured(rps: 500, pss: 0), measured(rps: 505, pss: 0), measured(rps: 495, pss: 0))
    cmp = Arena::Report::Compare.new(a, b, level: 0.01)
    pair = cmp.pairs.first
    assert_equal [1000.0, 1010.0, 990.0], pair.values("good_rps", :a)
    assert_equal [], pair.values("pss", :b)
    rps, _, pss = cmp.rows.first.changes
    assert rps.real?
    assert_equal(-0.5, rps.delta)
    assert_equal [1000.0, 500.0], [rps.a, rps.b]
    assert_nil pss.b
    assert_nil pss.delta
    refute pss.measured
    assert_equal false, pss.measured
    text = cmp.render
    assert_match(/\| 1,000 -> 500 \| -50\.0% \(p=\d/, text)
    assert_includes text, "| 48.8 MiB -> - |    n/a |"
    assert_includes text, "says so at 0.01 (unpaired"
  end

  # The whole table: headings, figures right-aligned, only-in lines only when there are some.
  def test_the_whole_table
    assert_equal <<~TEXT, Arena::Report::Compare.new(doc(measured(pss: 0)), doc(measured(pss: 0), measured("thin", variant: nil))).render
      +--------+----------+-------------------+----------------+--------+----------------+--------+------------+--------+
      | server | workload | scenario          | req/s A -> B   | change | p99 A -> B     | change | PSS A -> B | change |
      +--------+----------+-------------------+----------------+--------+----------------+--------+------------+--------+
      | puma   | server   | steady keep-alive | 1,000 -> 1,000 | +0.0%* | 900us -> 900us | +0.0%* |     - -> - |    n/a |
      +--------+----------+-------------------+----------------+--------+----------------+--------+------------+--------+
      only in B: thin server steady
      a change is real where Welch's t on log figures over the runs of each side says so at 0.05 (unpaired: A and B are separate runs, so the machine's drift between them stays in the test); else "not distinguishable"; * fewer than 3 runs a side: not tested
    TEXT
    pss = Arena::Report::Compare.new(doc(measured(pss: 0)), doc(measured)).rows.first.changes.last
    assert_equal [nil, 50_000.0, nil], [pss.a, pss.b, pss.delta], "not sampled in A: no figure, not 0"
    refute_includes Arena::Report::Compare.new(doc(measured), doc(measured)).render, "only in"
  end

  # The level is the test's: p=0.038 is real at 0.05, not at 0.01.
  def test_the_level_decides
    strict = Arena::Report::Compare.new(view("gate-cluster-threads-8"), view("gate-cluster-threads-4"), level: 0.01)
    pss = change(CLUSTER, "server", "PSS", strict)
    assert pss.noise?
    refute pss.real?
  end

  def test_pairing_goes_on_past_a_name_it_cannot_pair
    a = doc(measured("falcon:count=1"), measured("falcon:count=2"), measured("puma:threads=8"), measured("webrick"))
    b = doc(measured("falcon:count=3"), measured("puma:threads=4"), measured("webrick:threads=2"))
    assert_equal ["puma:threads=8 -> puma:threads=4", "webrick -> webrick:threads=2"], Arena::Report::Compare.new(a, b).pairs.map(&:label)
    two_in_b = Arena::Report::Compare.new(doc(measured("puma:threads=8")), doc(measured("puma:threads=4"), measured("puma:threads=2")))
    assert_equal [], two_in_b.pairs, "two configs of puma in B: which one changed is not known"
  end
end
