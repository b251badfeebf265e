# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "stringio"

# The run's one progress line, read byte for byte from the stream it writes.
class ReportProgressTest < Minitest::Test
  # A clock the test moves.
  class FakeClock
    attr_accessor :now

    def initialize = @now = 100.0

    def call = @now
  end

  def progress(tty:, total: 6, rounds: 3, width: 200)
    @io = StringIO.new
    @clock = FakeClock.new
    Arena::Report::Progress.new(io: @io, total: total, rounds: rounds, tty: tty, clock: @clock, width: width)
  end

  # On a terminal: one line rewritten in place, never a newline of its own;
  # a failure goes above it and the line is drawn again beneath.
  def test_a_terminal_gets_one_line_rewritten_in_place
    p = progress(tty: true)
    p.step(server: "puma", round: 1)
    @clock.now += 2.0
    p.step(server: "falcon", round: 1)
    p.say("FAILED unicorn: not ready after 30s")
    @clock.now += 2.0
    p.step(server: "puma", round: 2)
    p.finish
    assert_equal "\r\e[Karena: measuring · round 1/3 · puma · 1/6 measured" \
      "\r\e[Karena: measuring · round 1/3 · falcon · 2/6 measured · about 8s left" \
      "\r\e[KFAILED unicorn: not ready after 30s\n" \
      "\r\e[Karena: measuring · round 1/3 · falcon · 2/6 measured · about 8s left" \
      "\r\e[Karena: measuring · round 2/3 · puma · 3/6 measured · about 6s left" \
      "\r\e[K", @io.string
  end

  # A unit run again in its round (the machine was busy) is not planned: it
  # adds to the total and is said, and the round stays the run's round.
  def test_a_rerun_adds_to_the_total_and_is_said
    p = progress(tty: true, total: 2, rounds: 1)
    p.step(server: "puma", round: 1)
    p.step(server: "puma", round: 1, rerun: true)
    p.step(server: "falcon", round: 1)
    assert_equal "arena: measuring · round 1/1 · falcon · 3/3 measured · 1 re-run (busy machine)", @io.string.split("\r\e[K").last
  end

  # Wider than the terminal, a line would wrap and \r rewrite only its tail.
  def test_a_line_wider_than_the_terminal_is_cut_to_fit
    p = progress(tty: true, width: 30)
    p.step(server: "passenger:pool=4,queue=100", round: 1)
    assert_equal "\r\e[Karena: measuring · round 1/3…", @io.string
    assert_operator @io.string.delete_prefix("\r\e[K").size, :<, 30
  end

  # Into a log: a plain line when a round begins, and no other (issue 45:
  # at most one line a round), whatever the time between.
  def test_a_log_gets_one_line_per_round
    p = progress(tty: false, total: 8, rounds: 2)
    p.step(server: "a", round: 1) # new round: printed
    @clock.now += 4
    p.step(server: "b", round: 1)
    p.phase("started c") # said on a terminal only
    @clock.now += 30
    p.step(server: "c", round: 1) # 30 s since: still not
    @clock.now += 3
    p.step(server: "d", round: 1)
    @clock.now += 1
    p.step(server: "a", round: 2) # new round: printed
    @clock.now += 1
    p.step(server: "b", round: 2)
    p.step(server: "c", round: 2)
    p.step(server: "d", round: 2) # the last: not
    p.say("one of its own")
    assert_equal <<~LOG, @io.string
      arena: measuring · round 1/2 · a · 1/8 measured
      arena: measuring · round 2/2 · a · 5/8 measured · about 29s left
      one of its own
    LOG
  end

  # Between measurements a terminal's line says what the run does.
  def test_a_terminal_line_says_the_phase
    p = progress(tty: true)
    p.phase("started puma")
    p.step(server: "puma", round: 1)
    assert_equal "\r\e[Karena: started puma · 0/6 measured\r\e[Karena: measuring · round 1/3 · puma · 1/6 measured", @io.string
  end

  # --precision adds rounds past the plan: the count says so, and no time is guessed.
  def test_rounds_past_the_plan_are_counted_without_a_time_left
    p = progress(tty: false, total: 2, rounds: 1)
    p.step(server: "a", round: 1)
    p.step(server: "a", round: 1)
    p.step(server: "a", round: 2)
    assert_equal "arena: measuring · round 2 · a · 3 measured (2 planned, then rounds for --precision)\n", @io.string.lines.last
  end

  def test_durations_read_at_a_glance
    assert_equal %w[0s 45s 1m00s 3m05s 1h02m], [0.2, 45, 60, 185, 3725].map { |s| Arena::Report::Progress.duration(s) }
  end

  # The reporter: a measurement advances the line (its server by the settings
  # that differ from its defaults); --verbose adds today's line per
  # measurement; a failure always has its own line.
  def test_the_terminal_reporter_prints_no_line_per_measurement_unless_verbose
    quiet = run_reporter(verbose: false)
    assert_equal ["arena: measuring · round 1/2 · puma · 1/2 measured", "arena: measuring · round 2/2 · puma:threads=8 · 2/2 measured"],
      quiet.lines.grep(/round/).map(&:chomp)
    refute_match(/good req\/s, p99/, quiet)
    assert_match(/^FAILED unicorn: not ready$/, quiet)
    loud = run_reporter(verbose: true)
    assert_equal 2, loud.lines.grep(/good req\/s, p99/).size
    assert_empty loud.lines.grep(/measured$/), "a log with a line per measurement needs no progress lines"
    assert_match(/^FAILED unicorn: not ready$/, loud)
  end

  def test_a_failures_log_tail_is_its_last_ten_lines_cut_to_100_columns
    err = StringIO.new
    tail = (1..15).map { |i| "line #{i} #{"x" * 200}" }
    Arena::Report::Terminal.new(out: StringIO.new, err: err, verbose: false).server_failed("agoo", "agoo: crashed #{"y" * 150}", tail)
    lines = err.string.lines.map(&:chomp)
    assert_equal "FAILED agoo: crashed #{"y" * 150}", lines.first, "the message whole"
    assert_equal (6..15).map { |i| "  | line #{i} #{"x" * 200}"[0, 99] + "…" }, lines.drop(1)
  end

  def test_a_failure_after_the_start_is_led_by_its_config
    err = StringIO.new
    terminal = Arena::Report::Terminal.new(out: StringIO.new, err: err, verbose: false)
    terminal.server_failed("agoo:workers=1", "its log: [BUG] Segmentation fault; load engine: cannot connect", [])
    terminal.server_failed("agoo:workers=2", "the app answers / with 404 (under agoo:workers=2)", [])
    assert_equal ["FAILED agoo:workers=1: its log: [BUG] Segmentation fault; load engine: cannot connect",
      "FAILED the app answers / with 404 (under agoo:workers=2)"], err.string.lines.map(&:chomp)
  end

  private

  def run_reporter(verbose:)
    err = StringIO.new
    reporter = Arena::Report::Terminal.new(out: StringIO.new, err: err, verbose: verbose)
    machine = Arena::Plan::Machine.new(cores: 2, shared: false)
    plan = Struct.new(:servers, :workloads, :scenarios, :load, :out_dir, :rounds, :machine)
      .new([1, 2], [1], ["steady"], Struct.new(:connections).new(16), "/tmp/x", 2, machine)
    reporter.planned(plan, 2)
    [["puma:workers=2,threads=5,preload=false", 1], ["puma:workers=2,threads=8,preload=false", 2]].each do |server, round|
      reporter.measured(measurement(server, round))
    end
    reporter.server_failed("unicorn", "unicorn: not ready", [])
    err.string
  end

  def measurement(server, round)
    Arena::Results::Measurement.from_h({"server" => server, "workload" => "server", "scenario" => "steady",
      "variant" => "keep-alive", "repeat" => round,
      "load" => {"throughput_rps" => 100, "requests" => {"completed" => 500}, "errors" => {"total" => 0},
                 "latency_us" => {"count" => 500, "p50" => 900, "p99" => 2000, "max" => 3000}}})
  end
end
