# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The last words of `arena run`: the picks, each with its figures, then what
# the run did not measure and the command that would.
class ReportClosingTest < Minitest::Test
  FIXTURE = File.expand_path("../../fixtures/results/steady", __dir__)

  def test_the_picks_of_a_steady_run_in_the_terminal
    document = Arena::Report::Source.open(FIXTURE).view
    assert_equal <<~TEXT, Arena::Report::Closing.new(document).render

      Recommendations (from this run's figures only; report.md and report.html have them too):
        fast request/response API: no pick
          puma:threads=2 5,651 good req/s (4,363–6,938 over 2 runs), p99 11.8ms, CPU 38% on server; runner-up falcon 3,982
          good req/s (3,831–4,133 over 2 runs), p99 14.2ms, CPU 31%; not distinguishable: puma:threads=2 and falcon here:
          falcon has 2 round(s), puma:threads=2 2; the test needs 3 each
          then: arena run --rounds 3
        CPU-bound work: no pick
          puma:threads=2 102 good req/s (73.5–130 over 2 runs), p99 204.9ms, CPU 73% on primes; runner-up falcon 65.5 good
          req/s (65.0–66.0 over 2 runs), p99 179.1ms, CPU 49%; not distinguishable: puma:threads=2 and falcon here: falcon
          has 2 round(s), puma:threads=2 2; the test needs 3 each
          then: arena run --rounds 3
        limited memory or many small apps: falcon
          PSS peak 50.8 MiB (RSS 99.2 MiB) at 3,982 good req/s on server with 2 workers, among the servers within 50% of
          the best goodput (5,651 req/s); runner-up puma:threads=2 56.7 MiB with 2 workers at 5,651 req/s: 1.12x the
          memory; 1 smaller-serving server(s) left out
        Not measured in this run:
          waiting on I/O or long requests: arena run --workload sleep --scenario steady,rate
          surviving crashes and deploys: arena run --scenario crash,restart
          slow clients without a proxy: arena run --scenario slow-clients
    TEXT
  end

  # Every line within the width; a word longer than a line stands alone, whole.
  def test_words_are_filled_to_the_width_and_never_cut
    lines = Arena::Report::Closing.wrap("aaa bbb ccc #{"x" * 12} dd", indent: "  ", width: 9)
    assert_equal ["  aaa bbb", "  ccc", "  #{"x" * 12}", "  dd"], lines
  end

  def test_write_puts_it_on_the_stream_given
    io = StringIO.new
    Arena::Report::Closing.new(Arena::Report::Source.open(FIXTURE).view).write(io)
    assert io.string.end_with?("slow clients without a proxy: arena run --scenario slow-clients\n")
  end
end
