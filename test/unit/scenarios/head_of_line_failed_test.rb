# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Issue 45: a config that failed 30% of its fast requests (its run flagged
# `errors`) and answered the rest at x1.2 was said to protect fast requests
# best over one with no errors at x2.5, when its summary record carried no
# error share of its own (an older record, or the failures in another of its
# runs). A figure from a config that failed or hung never wins: the rule
# reads the flags of every run of the config's head-of-line.
class HeadOfLineFailedTest < Minitest::Test
  HoL = Arena::Scenarios::HeadOfLine

  def run_record(server, variant, flags:, error_pct:)
    {"server" => server, "workload" => "server", "scenario" => "head-of-line", "variant" => variant, "repeat" => 1,
     "load" => {"schema" => "arena-load/2", "model" => "open", "duration_s" => 3.0, "throughput_rps" => 50.0,
                "requests" => {"sent" => 150, "completed" => 150}, "latency_us" => {"count" => 150, "p50" => 900}},
     "summary" => {"good_rps" => 50.0, "error_pct" => error_pct, "flags" => flags}}
  end

  def summary_record(server, tail_x, beside_error_pct: nil)
    extra = {"slow" => "/sleep?ms=200", "share_pct" => 10, "rate" => 50.0, "beside_error_pct" => beside_error_pct,
             "fast" => [{"request" => "server", "tail_x" => tail_x}]}.compact
    {"server" => server, "workload" => "server", "scenario" => "head-of-line", "kind" => "summary", "variant" => "inflation",
     "repeat" => 1, "extra" => extra}
  end

  def verdict(flags_a:, error_a:)
    document = Arena::Results::Document.from_h({"measurements" => [
      run_record("a", "alone", flags: [], error_pct: 0.0), run_record("a", "beside 10% slow", flags: flags_a, error_pct: error_a),
      summary_record("a", 1.2),
      run_record("b", "alone", flags: [], error_pct: 0.0), run_record("b", "beside 10% slow", flags: [], error_pct: 0.0),
      summary_record("b", 2.5)
    ]})
    Arena::Report::Side.of(HoL).overall_findings(document).first
  end

  def test_a_config_whose_run_failed_never_protects_best
    line = verdict(flags_a: ["errors"], error_a: 30.0)
    assert_match(/\Ahead-of-line server: b protects fast requests best: /, line)
    assert_includes line, "a, which failed 30.0% of its requests"
  end

  def test_a_config_whose_run_hung_never_protects_best
    line = verdict(flags_a: ["unanswered"], error_a: 97.0)
    assert_match(/\Ahead-of-line server: b protects fast requests best: /, line)
  end

  def test_without_a_flag_the_lower_ratio_still_wins
    assert_match(/\Ahead-of-line server: a protects fast requests best: /, verdict(flags_a: [], error_a: 0.0))
  end
end
