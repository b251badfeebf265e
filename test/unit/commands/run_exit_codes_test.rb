# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "stringio"
require "arena/commands/run"

# Issue 45: one meaning per exit status, said in --help: 0 measured; 1 a
# threshold or gate failed; 2 bad input, or nothing could be measured; 130
# interrupted, with what was measured kept.
class ExitCodesTest < Minitest::Test
  def cli(*argv)
    out = StringIO.new
    err = StringIO.new
    status = begin
      Arena::CLI.new(argv, out: out, err: err).run
    rescue SystemExit => e
      # OptionParser's own --help prints to $stdout and exits: not what a command should do.
      e.status + 1000
    end
    [status, out.string, err.string]
  end

  def test_help_says_what_each_exit_status_means
    [cli("--help"), cli("run", "--help")].each do |status, out, _|
      assert_equal 0, status
      assert_match(/^exit status:/, out)
      assert_match(/^ +0 +measured/, out)
      assert_match(/^ +1 +a threshold or gate failed/, out)
      assert_match(/^ +2 +bad input, or nothing could be measured/, out)
      assert_match(/^ +130 +interrupted: what was measured is kept/, out)
    end
  end

  def test_bad_input_is_2
    assert_equal 2, cli("run", "--frobnicate").first
    assert_equal 2, cli("fly").first
    status, out, err = cli("report", File.join(Dir.tmpdir, "no-such-arena-run-#{Process.pid}"))
    assert_equal [2, ""], [status, out]
    assert_match(/\Aarena: no results file at \S+\n\z/, err)
  end

  def test_a_run_that_measured_nothing_is_2_and_one_that_measured_is_0
    empty = Arena::Results::Document.from_h({"measurements" => []})
    measured = Arena::Results::Document.from_h({"measurements" => [{"server" => "puma", "workload" => "server", "scenario" => "steady",
                                                                    "load" => {"throughput_rps" => 10.0, "requests" => {"completed" => 20}, "latency_us" => {"count" => 20}}}]})
    assert_equal 2, Arena::Commands::Run.status(empty)
    assert_equal 0, Arena::Commands::Run.status(measured)
  end
end
