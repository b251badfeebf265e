# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# A server that answered nothing (no response, no error) in a measurement is
# said so in its row and in Findings, and is never a pick: before, it read
# "0 good req/s, 0% errors", the figures of an idle server.
class UnansweredTest < Minitest::Test
  cover "Arena::Report::Rows*"
  cover "Arena::Results::LoadFigures*"

  def engine(completed)
    {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 1.0, "throughput_rps" => completed.to_f,
     "requests" => {"sent" => completed + 4, "completed" => completed},
     "latency_us" => {"count" => completed, "p50" => 900, "p99" => 4000, "max" => 5000},
     "good" => {"completed" => completed, "rps" => completed.to_f, "latency_us" => {"count" => completed, "p50" => 900, "p99" => 4000}}}
  end

  def document
    measurements = [["puma", 2000], ["falcon", 0]].flat_map do |server, completed|
      (1..3).map { |round| {"server" => server, "workload" => "server", "scenario" => "steady", "variant" => "keep-alive", "repeat" => round, "load" => engine(completed)} }
    end
    Arena::Results::Document.from_h({"measurements" => measurements})
  end

  def test_the_row_and_the_findings_say_unanswered
    rows = Arena::Report::Rows.from(document).to_h { |r| [r.server, r] }
    assert rows["falcon"].unanswered?
    assert rows["falcon"].erroneous?
    refute rows["puma"].unanswered?
    refute rows["puma"].erroneous?
    cells = Arena::Report::Table.new(document)
    assert_match(/ unanswered\z/, cells.cells(rows["falcon"])[3])
    refute_match(/unanswered/, cells.cells(rows["puma"])[3])
    line = Arena::Report::Findings.lines(document).find { |l| l.include?("no response and no error") }
    refute_nil line, Arena::Report::Findings.lines(document).inspect
    assert line.start_with?("falcon server steady keep-alive:"), line
  end

  # Issue 33's audit: one response in 10 s, then nothing, 31 of 32
  # connections hung. It read 0% errors and was picked as "the only server
  # measured".
  def hung_engine
    timeline = (0..9).map { |t| {"t" => t, "completed" => t.zero? ? 1 : 0, "errors" => 0} }
    {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 10.0, "throughput_rps" => 0.1,
     "connections" => {"requested" => 32, "opened" => 32}, "requests" => {"sent" => 33, "completed" => 1},
     "latency_us" => {"count" => 1, "p50" => 900}, "timeline" => timeline,
     "good" => {"completed" => 1, "rps" => 0.1, "latency_us" => {"count" => 1, "p50" => 900}}}
  end

  def test_a_server_that_answered_then_hung_is_unanswered_with_its_hung_requests_failed
    load = Arena::Results::LoadFigures.from_h(hung_engine)
    assert load.unanswered?
    assert_equal [9.0, 32, 32], [load.silent_s, load.in_flight, load.hung]
    assert_in_delta 100.0 * 32 / 33, load.error_pct, 0.001, "not 0% errors"
    summary = Arena::Results::Summary.of(load)
    assert_includes summary.flags, "unanswered"
    assert summary.erroneous?
    measurements = (1..3).map { |round| {"server" => "hung", "workload" => "server", "scenario" => "steady", "variant" => "keep-alive", "repeat" => round, "load" => hung_engine} }
    document = Arena::Results::Document.from_h({"measurements" => measurements})
    api = Arena::Report::Recommend.new(document).call.first
    assert_nil api.pick, "the only server measured, but hung: never picked"
  end

  # Half the run silent with requests in flight is hung; less, or nothing in
  # flight (an open model at a low rate between its requests), is not.
  # Its answers take 1 s on average, so they fill the run (the loop was
  # served: LoadFigures#idle_loop?) and only the silent end decides.
  def test_the_silent_end_needs_half_the_run_and_requests_in_flight
    at = ->(quiet, sent: 40) {
      timeline = (0..9).map { |t| {"t" => t, "completed" => (t < 10 - quiet) ? 3 : 0, "errors" => 0} }
      Arena::Results::LoadFigures.from_h(hung_engine.merge("timeline" => timeline, "requests" => {"sent" => sent, "completed" => 3 * (10 - quiet)},
        "latency_us" => {"count" => 3 * (10 - quiet), "p50" => 900_000, "mean" => 1_000_000}))
    }
    assert at.call(5).unanswered?
    refute at.call(4).unanswered?
    assert_equal 0.0, at.call(4).error_pct
    refute at.call(5, sent: 15).unanswered?, "nothing in flight"
    assert at.call(5, sent: 16).unanswered?
    errors = Arena::Results::LoadFigures.from_h(hung_engine.merge("timeline" => (0..9).map { |t| {"t" => t, "completed" => 0, "errors" => (t == 9) ? 1 : 0} },
      "errors" => {"total" => 1, "reset" => 1}))
    refute errors.unanswered?, "an error at the end is an answer of a kind"
    half = (0..19).map { |t| {"t" => t / 2.0, "completed" => (t < 10) ? 2 : 0, "errors" => 0} }
    assert_equal 5.0, Arena::Results::LoadFigures.from_h(hung_engine.merge("timeline" => half, "timeline_ms" => 500)).silent_s
  end
end
