# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "stringio"

# What `arena run` prints on its standard output when it is done (issue 45):
# no line over 100 columns, the rows sorted with the fastest's verdict
# leading, the waiting/working table only with --verbose, and findings one
# line each.
class RunSummaryTest < Minitest::Test
  def m(server, rps, round, p99: 3100, queue: nil, summary: nil)
    completed = (rps * 2).round
    {"server" => server, "workload" => "server", "scenario" => "steady", "variant" => "keep-alive", "repeat" => round,
     "load" => {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0, "throughput_rps" => rps,
                "requests" => {"completed" => completed, "sent" => completed}, "latency_us" => {"count" => completed, "p50" => 900, "p99" => p99}},
     "probes" => {"pss_peak_kb" => 42_188, "cpu_pct_mean" => 90.0}, "queue" => queue, "summary" => summary}.compact
  end

  # Agoo's stall as its summary recorded it, WEBrick's delayed ACK.
  AGOO_STALL = "p99 101.8 ms: working p99 0.1 ms and at most 1.9 ms queueing (31 requests ahead on one slot) explain 1.9 ms, " \
    "99.9 ms unexplained while 1% of 8 slots busy and 5% of its cores; likely a 100 ms poll interval or timer in the server " \
    "(a missed wake-up waits out the poll timeout); lowering the server's poll or timer setting moves the delay if this is the cause"
  WEBRICK_STALL = "mean 44.2 ms = waiting 0.6 ms + working 0.0 ms + 43.6 ms unexplained while the server used 3% of its cores; " \
    "likely Linux's 40 ms delayed ACK: a response written in pieces without TCP_NODELAY (Nagle) waits for the client's late " \
    "acknowledgement; the same run with --keep-alive off (a new connection acknowledges at once) or a response under 4 KB " \
    "(written whole) does not wait if this is the cause; it cost about 2181 of 2536 req/s"
  QUEUE = {"n" => 400, "queue_n" => 400, "queue_p50_us" => 100, "queue_p99_us" => 98_900, "work_p50_us" => 20, "work_p99_us" => 60}.freeze

  def document
    measurements = (1..3).flat_map do |round|
      d = [1.0, 1.1, 0.9][round - 1]
      [m("iodine:workers=2,threads=4", 15_000 * d, round, queue: QUEUE), m("puma:workers=2,threads=5", 8_000 * d, round, queue: QUEUE),
        m("agoo:workers=2,threads=4,poll_timeout=0.1", 1_674 * d, round, p99: 101_800, queue: QUEUE,
          summary: {"good_rps" => 1674 * d, "error_pct" => 0.0, "flags" => ["stalled"], "stall" => AGOO_STALL}),
        m("webrick", 700 * d, round, p99: 45_300, queue: QUEUE,
          summary: {"good_rps" => 700 * d, "error_pct" => 0.0, "flags" => ["stalled"], "stall" => WEBRICK_STALL})]
    end
    Arena::Results::Document.from_h({"measurements" => measurements})
  end

  def finished(verbose: false)
    out = StringIO.new
    Arena::Report::Terminal.new(out: out, err: StringIO.new, verbose: verbose).finished(document, interrupted: false)
    out.string
  end

  def test_no_line_is_over_100_columns
    wide = finished.lines.map(&:chomp).select { |l| l.size > 100 }
    assert_empty wide, finished
  end

  def test_the_rows_are_sorted_and_the_fastest_leads_with_its_verdict
    rows = finished.lines.grep(/\A(iodine|puma|agoo|webrick)\b/).map { |l| l[/\A\w+/] }
    assert_equal %w[iodine puma agoo webrick], rows.first(4), finished
    assert_match(/^iodine\S* +fastest /, finished)
    assert_match(/^puma\S* +0\.53× \(0\.5\d–0\.5\d\) /, finished)
  end

  def test_the_waiting_and_working_table_is_verbose_only
    refute_match(/waiting/, finished)
    assert_match(/waiting and working/, finished(verbose: true))
  end

  def test_findings_are_one_line_with_the_flag_and_its_number
    assert_match(/^agoo\S*  stalled  p99 102 ms at 90% CPU: its 100 ms poll \(poll_timeout\)$/, finished)
    assert_match(/^webrick  stalled  43\.6 ms a request unexplained at 90% CPU: a 40 ms delayed ACK \(Nagle\)$/, finished)
  end
end
