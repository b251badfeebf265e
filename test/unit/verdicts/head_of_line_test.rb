# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# head-of-line's pure parts: its arrival rate and which config protects fast requests best.
class HeadOfLineUnitTest < Minitest::Test
  cover "Arena::Verdicts::HeadOfLine*"

  Rule = Arena::Verdicts::HeadOfLine
  HoL = Arena::Scenarios::HeadOfLine

  def entry(server, *tail_x, stalled: nil, round: nil) = Rule::Entry.new(server: server, fast: tail_x.map { |x| {"tail_x" => x} }, stalled: stalled, round: round).freeze

  def test_the_config_whose_worst_fast_request_grew_least_protects_best
    verdict = Rule.best([entry("unicorn", 8.2), entry("puma", 1.0, 1.4), entry("falcon", 1.2)])
    assert_equal "falcon protects fast requests best", verdict.word
    assert_equal "their p90 beside the slow request was x1.2 their median alone, against x1.4 on puma (falcon x1.2, puma x1.4, unicorn x8.2)", verdict.reason
  end

  def test_without_two_configs_with_a_p99_it_cannot_judge
    refute Rule.best([entry("puma", 1.0)]).judged?
    refute Rule.best([entry("puma", 1.0), entry("unicorn", nil)]).judged?
    assert Rule.best([entry("puma", 1.0), entry("unicorn", 2.0)]).judged?
  end

  # A stalled server's fast requests wait out the same fixed delay alone and
  # beside the slow one, so their ratio looks best while every request idles.
  def test_a_stalled_config_is_never_best_and_the_verdict_says_why
    stall = "p50 41.0 ms sits at 40 ms while the server used 3% of its cores and all 8 connections were waiting"
    verdict = Rule.best([entry("webrick", 0.9, stalled: stall), entry("puma", 1.4), entry("unicorn", 400.0)])
    assert_equal "puma protects fast requests best", verdict.word
    assert_equal "their p90 beside the slow request was x1.4 their median alone, against x400.0 on unicorn (puma x1.4, unicorn x400.0); " \
      "skipped webrick (x0.9): stalled, #{stall}", verdict.reason
  end

  def test_with_one_config_left_after_the_stalled_ones_it_cannot_judge_and_says_which_were_skipped
    verdict = Rule.best([entry("webrick", 0.9, stalled: "p50 at 40 ms"), entry("puma", 1.4)])
    refute verdict.judged?
    assert_includes verdict.reason, "skipped webrick (x0.9): stalled, p50 at 40 ms"
  end

  # Rounds give one entry per config per round: a config is ranked once, by
  # the median of its rounds, so "against" never names the winner again;
  # from 3 rounds the lead must pass the test, paired on the rounds.
  def test_rounds_of_one_config_are_ranked_once_by_their_median_and_the_lead_tested
    verdict = Rule.best([entry("puma", 1.1), entry("puma", 1.3), entry("puma", 9.0), entry("falcon", 1.2), entry("falcon", 1.6), entry("falcon", 1.5)])
    assert_equal "not distinguishable", verdict.word
    assert_match(/\Apuma and falcon protect fast requests alike here: their p90 beside the slow request was x1\.3 their median alone, against x1\.5 on falcon \(puma x1\.3, falcon x1\.5; median of 3 rounds\); falcon is .*Welch's t on log figures.*unpaired/, verdict.reason)
    # The machine slowed in round 2 for both: paired, the lead is 1.5 / 1.2 in every round.
    paired = Rule.best([[1, 1.2, 1.5], [2, 3.0, 3.75], [3, 1.4, 1.75]].flat_map { |r, p, f| [entry("puma", p, round: r), entry("falcon", f, round: r)] })
    assert_equal "puma protects fast requests best", paired.word
    assert_match(/; falcon is \+25\.0% against puma .*paired t on log ratios, 3 rounds/, paired.reason)
    # The winner's reason whole: its figures, then the paired test's own words.
    assert_match(/\Atheir p90 beside the slow request was x1\.4 their median alone, against x1\.8 on falcon \(puma x1\.4, falcon x1\.8; median of 3 rounds\); falcon is \+25\.0% against puma \(95% interval \+25\.0% to \+25\.0%; paired t on log ratios, 3 rounds, p=[\d.e-]+ < 0\.05\)\z/, paired.reason)
    same = Rule.best([[1, 1.2], [2, 3.0], [3, 1.4]].flat_map { |r, p| [entry("puma", p, round: r), entry("falcon", p * 1.001, round: r)] })
    assert_equal "equivalent", same.word
    # A tie still says which configs were skipped as stalled; the rounds
    # said are the most any config ran (webrick's one comes first here).
    tie = Rule.best([entry("webrick", 0.9, stalled: "p50 at 40 ms", round: 1),
      *[[1, 1.2], [2, 3.0], [3, 1.4]].flat_map { |r, p| [entry("puma", p, round: r), entry("falcon", p * 1.001, round: r)] }])
    assert_equal "equivalent", tie.word
    assert_match(/\(puma x1\.4, falcon x1\.4; median of 3 rounds\); .*; skipped webrick \(x0\.9\): stalled, p50 at 40 ms\z/, tie.reason)
  end

  # Issue 33's audit: A fails 30% of its fast requests and slows the rest
  # x1.2; B fails none, x2.5. A was said to protect them best.
  def test_errors_beside_the_slow_request_weigh_before_the_ratio
    a = Rule::Entry.new(server: "a", fast: [{"tail_x" => 1.2}], error_pct: 30.0).freeze
    b = Rule::Entry.new(server: "b", fast: [{"tail_x" => 2.5}], error_pct: 0.0).freeze
    verdict = Rule.best([a, b])
    assert_equal "b protects fast requests best", verdict.word
    assert_equal "their p90 beside the slow request was x2.5 their median alone, against a, which failed 30.0% of its requests " \
      "beside it (x1.2 on the rest) (b x2.5, a x1.2 with 30.0% failed)", verdict.reason
    # At the limit (1%) errors do not count against it.
    at_limit = Rule.best([a.dup.tap { |e| e.error_pct = 1.0 }, b])
    assert_equal "a protects fast requests best", at_limit.word
    assert_equal "a protects fast requests best", Rule.best([a.dup.tap { |e| e.error_pct = nil }, b]).word, "older records: none recorded"
    both = Rule.best([a, b.dup.tap { |e| e.error_pct = 5.0 }])
    refute both.judged?
    assert_equal "every config failed over 1% of its requests beside the slow request (a x1.2 with 30.0% failed, b x2.5 with 5.0% failed)", both.reason
  end

  # Two rounds a config: each ranked by the median of its rounds (the mean
  # of the middle two), errors too; a round without a ratio is left out, and
  # a config stalled in any round is skipped with that round's reason.
  def test_even_rounds_take_the_middle_two_and_a_stall_in_any_round_skips
    e = ->(server, x, round, error_pct: nil, stalled: nil) {
      Rule::Entry.new(server: server, fast: [{"tail_x" => x}], round: round, error_pct: error_pct, stalled: stalled).freeze
    }
    verdict = Rule.best([e.call("puma", 1.2, 1, error_pct: 0.0), e.call("puma", 1.6, 2, error_pct: 4.0),
      e.call("falcon", 2.0, 1), e.call("falcon", 3.0, 2), e.call("unicorn", 3.0, 1), e.call("unicorn", nil, 2),
      e.call("webrick", 0.9, 1), e.call("webrick", 1.1, 2, stalled: "p50 at 40 ms")])
    assert_equal "falcon protects fast requests best", verdict.word
    assert_equal "their p90 beside the slow request was x2.5 their median alone, against x3.0 on unicorn " \
      "(falcon x2.5, unicorn x3.0, puma x1.4 with 2.0% failed; median of 2 rounds); skipped webrick (x1.0): stalled, p50 at 40 ms", verdict.reason
    # The runner-up failed: said with its ratio on the rest, and what was skipped.
    failed = Rule.best([e.call("puma", 1.2, 1, error_pct: 0.0), e.call("puma", 1.6, 2, error_pct: 4.0), e.call("falcon", 2.0, 1),
      e.call("webrick", 0.9, 1, stalled: "p50 at 40 ms")])
    assert_equal "their p90 beside the slow request was x2.0 their median alone, against puma, which failed 2.0% of its requests " \
      "beside it (x1.4 on the rest) (falcon x2.0, puma x1.4 with 2.0% failed; median of 2 rounds); skipped webrick (x0.9): stalled, " \
      "p50 at 40 ms", failed.reason
    assert_equal "every config failed over 1% of its requests beside the slow request (puma x1.4 with 2.0% failed, falcon x2.0 " \
      "with 1.5% failed; median of 2 rounds); skipped webrick (x0.9): stalled, p50 at 40 ms",
      Rule.best([e.call("puma", 1.2, 1, error_pct: 0.0), e.call("puma", 1.6, 2, error_pct: 4.0),
        e.call("falcon", 2.0, 1, error_pct: 1.5), e.call("webrick", 0.9, 1, stalled: "p50 at 40 ms")]).reason
    alone = Rule.best([e.call("puma", 1.0, 1), e.call("webrick", 0.9, 1, stalled: "p50 at 40 ms"), e.call("unicorn", nil, 1)])
    assert_equal "cannot judge: needs two server configs with the fast requests' p90 beside the slow request (10 responses), " \
      "not stalled; skipped webrick (x0.9): stalled, p50 at 40 ms", alone.to_s
    assert_equal "cannot judge: needs two server configs with the fast requests' p90 beside the slow request (10 responses), " \
      "not stalled", Rule.best([]).to_s
    # Stalled in two rounds: the first one's reason is said.
    twice = Rule.best([e.call("webrick", 0.9, 1, stalled: "p50 at 40 ms"), e.call("webrick", 1.1, 2, stalled: "p50 at 200 ms"),
      e.call("puma", 1.2, 1), e.call("falcon", 2.0, 1)])
    assert_match(/; skipped webrick \(x1\.0\): stalled, p50 at 40 ms\z/, twice.reason)
    # A point without fast requests has no ratio.
    refute Rule.best([Rule::Entry.new(server: "puma", fast: []).freeze, entry("falcon", 1.2)]).judged?
  end

  # A config's worst fast request decides, wherever it is in the list; any
  # fast request without a ratio (or an older record without the key)
  # leaves the measurement without one; the median of five rounds is the third.
  def test_the_worst_ratio_of_a_measurement_and_the_median_of_its_rounds
    assert_equal 1.4, Rule.worst(entry("puma", 1.4, 1.0))
    assert_nil Rule.worst(entry("puma", 2.0, nil))
    assert_nil Rule.worst(entry("puma", nil, 2.0))
    assert_nil Rule.worst(Rule::Entry.new(server: "puma", fast: [{"tail_x" => 1.0}, {"p99_x" => 3.0}]).freeze)
    assert_nil Rule.worst(Rule::Entry.new(server: "puma", fast: []).freeze)
    assert_equal 3.0, Rule.median([5.0, 1.0, 3.0, 2.0, 4.0])
    assert_equal 2.5, Rule.median([4.0, 1.0, 3.0, 2.0])
    verdict = Rule.best([entry("puma", 1.2, nil), entry("falcon", 1.5), entry("unicorn", 2.0)])
    assert_equal "falcon protects fast requests best", verdict.word, "puma's one measurement has a fast request without a ratio"
  end

  # The lead is tested on the rounds with a ratio, paired only when every
  # one of them knows its round, and not at all under 3 rounds a side.
  def test_the_lead_is_tested_on_the_rounds_that_have_a_ratio
    rows = [[1, 1.2, 1.5], [2, 3.0, 3.75], [3, 1.4, 1.75]].flat_map { |r, p, f| [entry("puma", p, round: r), entry("falcon", f, round: r)] }
    with_gap = Rule.best([*rows, entry("puma", nil, round: 4), entry("falcon", 1.6, round: 4)])
    assert_match(/paired t on log ratios, 3 rounds/, with_gap.reason, "puma's round 4 has no ratio")
    four = [*rows, entry("puma", 1.3, round: 4), entry("falcon", 1.6, round: 4)]
    unknown = Rule.best(four.map { |e| (e.server == "falcon" && e.round == 2) ? e.dup.tap { |x| x.round = nil } : e })
    assert_match(/Welch's t on log figures.*unpaired/, unknown.reason, "one of falcon's rounds unknown: not paired on the other 3")
    short = Rule.best(rows.reject { |e| e.server == "falcon" && e.round == 3 })
    assert_equal "puma protects fast requests best", short.word
    assert_equal "their p90 beside the slow request was x1.4 their median alone, against x2.6 on falcon (puma x1.4, falcon x2.6; " \
      "median of 3 rounds)", short.reason, "two rounds of falcon: no test"
  end

  def test_a_config_stalled_in_any_measurement_of_the_workload_enters_as_stalled
    m = ->(server, workload, scenario, kind: nil, flags: [], stall: nil, extra: {}) {
      Arena::Results::Measurement.new(server: server, workload: workload, scenario: scenario, kind: kind, extra: extra,
        summary: Arena::Results::Summary.new(flags: flags, stall: stall).freeze).freeze
    }
    hol = {"fast" => [{"tail_x" => 0.9}], "beside_error_pct" => 2.5}
    entries = HoL.entries([
      m.call("webrick", "server", "head-of-line", flags: ["stalled"], stall: "p50 at 40 ms"),
      m.call("webrick", "server", "head-of-line", kind: "summary", extra: hol),
      m.call("puma", "server", "head-of-line", kind: "summary", extra: hol),
      m.call("puma", "page", "steady", flags: ["stalled"], stall: "another workload")
    ])
    assert_equal [["server", "webrick", "p50 at 40 ms", 2.5], ["server", "puma", nil, 2.5]], entries.map { |w, e| [w, e.server, e.stalled, e.error_pct] }
  end

  def test_the_rate_keeps_one_slow_request_in_flight
    assert_equal 50.0, HoL.rate(10, 0.2)
    assert_equal 100.0, HoL.rate(10, 0.1)
    assert_equal 1.0, HoL.rate(90, 100)
  end

  def test_a_fast_point_has_ratios_only_where_both_percentiles_are_supported
    few = Arena::Results::Latency.new(n: 50, p50: 1000, p99: 5000).freeze
    many = Arena::Results::Latency.new(n: 500, p50: 2000, p99: 40_000).freeze
    point = HoL.point("server", few, many)
    assert_equal 2.0, point["p50_x"]
    assert_nil point["p99_x"], "50 responses support no p99"
    assert_equal 8.0, HoL.point("server", Arena::Results::Latency.new(n: 100, p50: 1000, p99: 5000).freeze, many)["p99_x"]
  end
end
