# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

class ReportTableTest < Minitest::Test
  cover "Arena::Results::Measurement*"
  cover "Arena::Results::LoadFigures*"
  cover "Arena::Results::Summary*"

  def measurement(server, rps, p99, errors: 0, variant: "keep-alive", pss: 51_200)
    {
      "server" => server, "workload" => "server", "scenario" => "steady", "variant" => variant,
      "load" => {
        "throughput_rps" => rps, "requests" => {"completed" => (rps * 5).round},
        "errors" => {"total" => errors},
        "latency_us" => {"count" => (rps * 5).round, "p50" => 900, "p99" => p99, "max" => p99 * 3}
      },
      "probes" => {"pss_peak_kb" => pss, "rss_peak_kb" => pss * 3, "cpu_pct_mean" => 97.4}
    }
  end

  def test_whole_table_with_rounds_folded_into_median_interval_and_p99_spread
    document = {"measurements" => [
      measurement("puma:workers=2", 20_000.4, 2_500),
      measurement("puma:workers=2", 22_000, 2_700),
      measurement("puma:workers=2", 21_000, 2_600),
      measurement("unicorn:workers=2", 9_876.5, 1_500_000, errors: 3, variant: "close", pss: 2_097_152)
    ]}
    assert_equal <<~TABLE, Arena::Report::Table.new(Arena::Results::Document.from_h(document)).render
      +-------------------+-----------------+------------+---+--------+-------+-----------------+----------+-----+
      | server            | good req/s ±95% | × top ±95% | n | errors | p50   | p99 (rounds)    | PSS peak | CPU |
      +-------------------+-----------------+------------+---+--------+-------+-----------------+----------+-----+
      | server · steady keep-alive                                                                               |
      +-------------------+-----------------+------------+---+--------+-------+-----------------+----------+-----+
      | puma:workers=2    |     21,000 ±12% |          - | 3 |      0 | 900us | 2.6ms (2.5-2.7) | 50.0 MiB | 97% |
      +-------------------+-----------------+------------+---+--------+-------+-----------------+----------+-----+
      | server · steady close                                                                                    |
      +-------------------+-----------------+------------+---+--------+-------+-----------------+----------+-----+
      | unicorn:workers=2 |           9,877 |          - | 1 | <0.01% | 900us |           1.50s | 2.00 GiB | 97% |
      +-------------------+-----------------+------------+---+--------+-------+-----------------+----------+-----+
      n: rounds · ±: the 95% interval · × top: goodput over the group's top row, paired on the rounds (≈ within ±3%)
      p99 (its lowest-highest round, in its unit) · max, RSS and each server's full config: report.md
    TABLE
  end

  # A default run as it is measured: workloads and servers in a shuffled
  # order, every config at its defaults but one. The terminal's table groups
  # by workload (the plan's order), the highest goodput first, each server
  # named by the settings that differ from its defaults on the run's machine
  # (2 cores, pinned: 2 workers), and stays within 120 columns.
  def test_terminal_table_grouped_by_workload_sorted_by_goodput_labelled_by_what_differs
    puma = "puma:workers=2,threads=5,preload=false"
    threads = "puma:workers=2,threads=16,preload=false"
    unicorn = "unicorn:workers=2,preload=true,timeout=60"
    falcon = "falcon:count=2,model=forked+yjit"
    figures = {
      [puma, "primes"] => 101, [unicorn, "server"] => 1_592, [threads, "server"] => 6_200, [falcon, "primes"] => 65.5,
      [puma, "server"] => 5_651, [falcon, "server"] => 3_982, [unicorn, "primes"] => 38.8, [threads, "primes"] => 98
    }
    measurements = figures.flat_map do |(server, workload), rps|
      [0.95, 1.0, 1.05].map { |f| measurement(server, rps * f, 12_000).merge("workload" => workload) }
    end
    plan = {"machine" => {"cores" => 2, "cpus" => "pinned"}, "workloads" => [{"name" => "server"}, {"name" => "primes"}],
            "scenarios" => ["steady"]}
    table = Arena::Report::Table.new(Arena::Results::Document.from_h({"plan" => plan, "measurements" => measurements})).render
    assert_equal <<~TABLE, table
      +-----------------+-----------------+------------+---+--------+-------+--------------------+----------+-----+
      | server          | good req/s ±95% | × top ±95% | n | errors | p50   | p99 (rounds)       | PSS peak | CPU |
      +-----------------+-----------------+------------+---+--------+-------+--------------------+----------+-----+
      | server · steady keep-alive                                                                                |
      +-----------------+-----------------+------------+---+--------+-------+--------------------+----------+-----+
      | puma:threads=16 |      6,200 ±12% |          - | 3 |      0 | 900us | 12.0ms (12.0-12.0) | 50.0 MiB | 97% |
      | puma            |      5,651 ±12% | 0.91× ±11% | 3 |      0 | 900us | 12.0ms (12.0-12.0) | 50.0 MiB | 97% |
      | falcon+yjit     |      3,982 ±12% | 0.64× ±11% | 3 |      0 | 900us | 12.0ms (12.0-12.0) | 50.0 MiB | 97% |
      | unicorn         |      1,592 ±12% | 0.26× ±11% | 3 |      0 | 900us | 12.0ms (12.0-12.0) | 50.0 MiB | 97% |
      +-----------------+-----------------+------------+---+--------+-------+--------------------+----------+-----+
      | primes · steady keep-alive                                                                                |
      +-----------------+-----------------+------------+---+--------+-------+--------------------+----------+-----+
      | puma            |        101 ±12% |          - | 3 |      0 | 900us | 12.0ms (12.0-12.0) | 50.0 MiB | 97% |
      | puma:threads=16 |       98.0 ±12% | 0.97× ±11% | 3 |      0 | 900us | 12.0ms (12.0-12.0) | 50.0 MiB | 97% |
      | falcon+yjit     |       65.5 ±12% | 0.65× ±11% | 3 |      0 | 900us | 12.0ms (12.0-12.0) | 50.0 MiB | 97% |
      | unicorn         |       38.8 ±12% | 0.38× ±11% | 3 |      0 | 900us | 12.0ms (12.0-12.0) | 50.0 MiB | 97% |
      +-----------------+-----------------+------------+---+--------+-------+--------------------+----------+-----+
      n: rounds · ±: the 95% interval · × top: goodput over the group's top row, paired on the rounds (≈ within ±3%)
      p99 (its lowest-highest round, in its unit) · max, RSS and each server's full config: report.md
    TABLE
    assert_operator table.lines.map { |l| l.chomp.size }.max, :<=, 120
  end

  # A default that depends on the machine is judged on the run's machine;
  # without one recorded, such a setting stays in the label. The runtime and
  # envelope tails stay; a label Arena did not make is left alone.
  def test_labels_keep_only_the_settings_that_differ_from_the_defaults
    doc = ->(machine) { Arena::Results::Document.from_h({"plan" => {"machine" => machine}, "measurements" => []}) }
    pinned = Arena::Report::Labels.new(doc.call({"cores" => 2, "cpus" => "pinned"}))
    assert_equal "puma", pinned.call("puma:workers=2,threads=5,preload=false")
    assert_equal "puma:workers=3", pinned.call("puma:workers=3,threads=5,preload=false")
    assert_equal "puma+yjit@cpus=1", pinned.call("puma:workers=2,threads=5,preload=false+yjit@cpus=1")
    assert_equal "webrick", pinned.call("webrick")
    assert_equal "custom:workers=2", pinned.call("custom:workers=2")
    # 8 cores shared: 8 workers are the default, 2 are not.
    shared = Arena::Report::Labels.new(doc.call({"cores" => 8, "cpus" => "shared"}))
    assert_equal "puma", shared.call("puma:workers=8,threads=5,preload=false")
    assert_equal "puma:workers=2", shared.call("puma:workers=2,threads=5,preload=false")
    unknown = Arena::Report::Labels.new(doc.call(nil))
    assert_equal "puma:workers=2", unknown.call("puma:workers=2,threads=5,preload=false")
  end

  # Rounds' latency comes from their merged histograms of good responses,
  # not a median of percentiles: one slow round of three holds a fifth of the
  # responses, so the merged p99 is that round's, while the median of the
  # rounds' p99s would hide it.
  def test_rounds_latency_is_read_from_their_merged_histograms
    hist = Arena::Stats::Histogram
    rounds = [[1_000] * 400, [1_000] * 400, [50_000] * 200].map do |values|
      h = hist.of(values)
      m = measurement("puma:workers=2", values.size / 5.0, h.percentile(99))
      m["load"]["good"] = {"completed" => values.size, "rps" => values.size / 5.0, "latency_us" => h.latency_us,
                           "latency_histogram" => h.to_h}
      m
    end
    row = Arena::Report::Rows.from(Arena::Results::Document.from_h({"measurements" => rounds})).first
    merged = hist.merge(rounds.map { |m| hist.decode(m["load"]["good"]["latency_histogram"]) })
    assert_equal 1_000, merged.percentile(50).round(-2)
    assert_equal merged.percentile(99).to_f, row.p99_us
    assert_operator row.p99_us, :>, 40_000, "the slow round's fifth of the responses sets the p99"
    assert_equal 1_000, row.samples
    # A round without a histogram: the rounds' median percentiles stand in.
    rounds[0]["load"]["good"].delete("latency_histogram")
    fallback = Arena::Report::Rows.from(Arena::Results::Document.from_h({"measurements" => rounds})).first
    assert_operator fallback.p99_us, :<, 2_000
  end

  # Short rounds of a slow server hold under 100 responses each; their
  # merged histogram holds more, so the row has its p99 and no finding says
  # "no p99 is shown". A single short run still gets the line.
  def test_few_samples_is_said_only_where_the_row_has_no_p99
    hist = Arena::Stats::Histogram
    rounds = Array.new(3) do
      h = hist.of([48_000] * 60)
      m = measurement("webrick", 200.0, h.percentile(99))
      m["load"]["latency_us"]["count"] = 60
      m["load"]["good"] = {"completed" => 60, "rps" => 200.0, "latency_us" => h.latency_us, "latency_histogram" => h.to_h}
      m["summary"] = {"good_rps" => 200.0, "flags" => ["few-samples"]}
      m
    end
    doc = Arena::Results::Document.from_h({"measurements" => rounds})
    assert_equal 180, Arena::Report::Rows.from(doc).first.samples
    assert_empty Arena::Report::Findings.flag_lines(doc).grep(/no p99/)
    one = Arena::Results::Document.from_h({"measurements" => rounds.first(1)})
    assert_equal 1, Arena::Report::Findings.flag_lines(one).grep(/no p99/).size
  end

  # A noisy round is left out when its re-run is there, and the row says so.
  def test_a_noisy_round_is_left_out_of_the_interval
    noisy = measurement("puma:workers=2", 5_000, 9_000).merge("summary" => {"good_rps" => 5_000, "flags" => ["noisy"]})
    rounds = [20_000, 21_000, 22_000].map { |r| measurement("puma:workers=2", r, 2_600) }
    rounds.each_with_index { |m, i| m["summary"] = {"good_rps" => [20_000, 21_000, 22_000][i], "flags" => []} }
    row = Arena::Report::Rows.from(Arena::Results::Document.from_h({"measurements" => [noisy, *rounds]})).first
    assert_equal 3, row.runs
    assert_equal 1, row.noisy_out
    assert_equal 21_000, row.rps
    assert row.interval.low > 15_000, "the 5,000 of the noisy round is not in the interval: #{row.interval}"
    assert_match(/21,000 ±\d+% \(1 noisy out\)/, Arena::Report::Table.new(Arena::Results::Document.from_h({"measurements" => [noisy, *rounds]})).render)
  end

  # On a busy machine one round was clean and five were noisy, each with a
  # noisy re-run: the row keeps one figure a round (the clean one, else the
  # re-run), not the one clean round alone (a row of n=1 read 10,773 req/s,
  # became its group's reference, and every ratio against it went unpaired).
  def test_a_row_keeps_one_figure_a_round_when_most_rounds_were_noisy
    figures = [[1, nil, 10_000, []], [2, nil, 4_000, ["noisy"]], [2, true, 5_000, ["noisy"]],
      [3, nil, 3_000, ["noisy"]], [3, true, 6_000, ["noisy"]]]
    ms = figures.map do |round, rerun, rps, flags|
      measurement("thin", rps, 2_000).merge("repeat" => round, "rerun" => rerun, "summary" => {"good_rps" => rps, "flags" => flags})
    end
    row = Arena::Report::Rows.from(Arena::Results::Document.from_h({"measurements" => ms})).first
    assert_equal [10_000, 5_000, 6_000], row.rps_runs
    assert_equal [1, 2, 3], row.round_runs
    assert_equal 2, row.noisy_out
  end

  # A dead server behind a proxy answers fast 502s: they are errors, not
  # throughput, and a row with more than 1% of them is marked.
  def test_errors_are_not_throughput_and_mark_the_row
    m = measurement("thin", 30_000, 900)
    m["load"]["requests"]["completed"] = 150_000
    m["load"]["errors"] = {"total" => 70_000, "unexpected_status" => 70_000}
    m["load"]["status"] = {"200" => 80_000, "502" => 70_000}
    row = Arena::Report::Rows.from(Arena::Results::Document.from_h({"measurements" => [m]})).first
    assert_in_delta 16_000, row.rps, 0.5
    assert_in_delta 46.667, row.error_pct, 0.01
    cells = Arena::Report::Table.new(Arena::Results::Document.from_h({"measurements" => [m]})).cells(row)
    assert_equal ["16,000 !", "-", "46.67%"], cells[3, 3], "alone in its group: no ratio"
  end

  def test_p99_needs_a_hundred_samples
    m = measurement("webrick", 10, 900)
    m["load"]["latency_us"]["count"] = 42
    row = Arena::Report::Rows.from(Arena::Results::Document.from_h({"measurements" => [m]})).first
    assert_equal "n=42 too small", Arena::Report::Table.new(nil).cells(row)[7]
  end

  def test_siege_report_fields_from_the_engine_document
    load = {
      "requests" => {"completed" => 1000}, "errors" => {"total" => 0}, "status" => {"200" => 990, "503" => 10},
      "duration_s" => 2.0, "bytes_received" => 2_097_152,
      "latency_us" => {"mean" => 50_000, "max" => 250_000, "min" => 1_000}
    }
    assert_equal({
      "transactions" => 1000, "availability_pct" => 100.0, "elapsed_s" => 2.0, "data_transferred_mb" => 2.0,
      "response_time_s" => 0.05, "transaction_rate" => 500.0, "throughput_mb_s" => 1.0, "concurrency" => 25.0,
      "successful" => 990, "failed" => 0, "longest_s" => 0.25, "shortest_s" => 0.001
    }, Arena::Scenarios::Reps.siege_report(Arena::Results::LoadFigures.from_h(load)))
  end
end
