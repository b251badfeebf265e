# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# A server that answered nothing (no response, no error) in a measurement is
# said so in its row and in Findings, and is never a pick: before, it read
# "0 good req/s, 0% errors", the figures of an idle server.
class UnansweredTest < Minitest::Test
  cover "Arena::Report::Rows*"

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
end
