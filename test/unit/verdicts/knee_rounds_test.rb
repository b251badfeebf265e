# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Issue 35: a rate sweep repeated over rounds answers once, with its spread,
# not with one "knee:" or "none:" line per round.
class KneeRoundsTest < Minitest::Test
  cover "Arena::Verdicts::KneeRounds*"

  K = Arena::Verdicts::KneeRounds

  def round(knee, word = knee ? "knee" : "none", reason = nil)
    {"verdict" => word, "verdict_reason" => reason, "knee_rps" => knee}
  end

  def test_every_round_found_a_knee_the_median_and_the_range
    v = K.call([round(900), round(800), round(1000)])
    assert_equal "knee: 900 req/s, the median of 3 rounds (800-1,000 req/s over the rounds: 900, 800, 1,000)", v.to_s
    assert_equal "knee: 850 req/s, the median of 2 rounds (800-900 req/s over the rounds: 900, 800)", K.call([round(900), round(800)]).to_s
    assert_equal "knee: 5.0 req/s, the median of 1 rounds (one round: 5.0 req/s)", K.call([round(5)]).to_s
  end

  def test_the_same_other_word_in_every_round
    v = K.call([round(nil, "none", "no rate sustained (the lowest, 1.0 req/s, missed)"), round(nil, "none", "other")])
    assert_equal "none: in all 2 rounds; round 1: no rate sustained (the lowest, 1.0 req/s, missed)", v.to_s
    assert_equal "stopped: in all 2 rounds", K.call([round(nil, "stopped"), round(nil, "stopped")]).to_s
  end

  def test_rounds_that_disagree_are_unsettled
    v = K.call([round(900), round(nil, "none", "x"), round(700), round(nil, "cannot judge", "y")])
    assert_equal "unsettled: the 4 rounds disagree: knee in 2, cannot judge in 1, none in 1; knees 700-900 req/s over the rounds: 900, 700", v.to_s
    assert_equal "unsettled: the 2 rounds disagree: none in 1, stopped in 1", K.call([round(nil, "stopped"), round(nil, "none")]).to_s
  end

  # Older results files stored no verdict: a knee figure is a knee.
  def test_older_rounds_without_a_verdict
    assert_equal "knee", K.call([{"knee_rps" => 10}, {"knee_rps" => 12}]).word
    assert_equal "none", K.call([{}, {}]).word
  end

  def summary(server, knee, round)
    Arena::Results::Measurement.new(server: server, workload: "server", scenario: "rate", variant: "curve", kind: "summary",
      repeat: round, extra: round(knee).merge("slo_ms" => 100, "closed_max_rps" => 1000.0 + round)).freeze
  end

  # The findings say one line per server and workload, where the first round's stood.
  def test_the_findings_word_a_sweep_once_over_its_rounds
    ms = [summary("a", 900, 1), summary("b", 500, 1), summary("a", 800, 2), summary("b", 500, 2), summary("a", 1000, 3), summary("b", 600, 3)]
    doc = Arena::Results::Document.new(measurements: ms, servers: [], notes: [])
    lines = Arena::Report::Findings.scenario_lines(doc)
    assert_equal 2, lines.size
    assert_equal "a server rate over 3 rounds: knee: 900 req/s, the median of 3 rounds (800-1,000 req/s over the rounds: 900, 800, 1,000), " \
      "with p99 <= 100 ms (closed maximum 1,001-1,003 req/s)", lines[0]
    assert_match(/\Ab server rate over 3 rounds: knee: 500 req\/s/, lines[1])
    one = Arena::Report::Findings.scenario_lines(Arena::Results::Document.new(measurements: [ms.first], servers: [], notes: []))
    assert_equal [Arena::Report::Side.of(Arena::Scenarios::Rate).finding(ms.first)], one
  end
end
