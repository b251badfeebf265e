# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# A summary's flags come from one list of rules, each `flag(figures) ->
# Verdict | nil`, recorded in the list's order; a rule that says nothing adds
# nothing, and the reasons the summary keeps are the flagged verdicts' own.
class VerdictFlagsTest < Minitest::Test
  cover "Arena::Verdicts::Flags*"

  F = Arena::Verdicts::Flags

  def engine(completed: 2000, sent: nil, errors: 0, p99: 4000)
    {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 1.0, "throughput_rps" => completed.to_f,
     "connections" => {"requested" => 16, "opened" => 16},
     "requests" => {"sent" => sent || completed, "completed" => completed},
     "errors" => {"total" => errors, "status" => errors},
     "latency_us" => {"count" => completed, "p50" => 900, "p99" => p99, "max" => 5000, "mean" => 1000},
     "good" => {"completed" => completed - errors, "rps" => (completed - errors).to_f,
                "latency_us" => {"count" => completed - errors, "p50" => 900, "p99" => p99, "mean" => 1000}}}
  end

  def figures(load: engine, **kw) = F::Figures.new(load: Arena::Results::LoadFigures.from_h(load), settled: true, **kw)

  def test_a_quiet_measurement_is_flagged_by_no_rule
    assert_equal [], F.of(figures)
  end

  def test_the_simple_rules_flag_what_they_read
    assert_equal %w[noisy], F.of(figures(noisy: true)).map(&:word)
    assert_equal %w[did-not-settle], F.of(figures(settled: false)).map(&:word)
    assert_equal %w[loader-bound], F.of(figures(loader_cpu_pct: 90.0)).map(&:word)
    assert_equal [], F.of(figures(loader_cpu_pct: Arena::Results::LOADER_BUSY_PCT)).map(&:word), "at the limit is not over it"
    assert_equal %w[errors], F.of(figures(load: engine(errors: 100))).map(&:word)
  end

  def test_flags_follow_the_list_order_whatever_order_the_rules_flag_in
    f = figures(noisy: true, settled: false, loader_cpu_pct: 99.0, fault: Arena::Verdicts::Verdict.of("truncated", "why"))
    assert_equal %w[truncated noisy loader-bound did-not-settle], F.of(f).map(&:word)
    assert_equal %w[did-not-settle noisy], F.of(f, rules: [F::DidNotSettle, F::Noisy]).map(&:word)
  end

  def test_a_new_rule_is_one_entry_in_the_list
    seen = Module.new { def self.flag(f) = Arena::Verdicts::Verdict.of("seen", "it read #{f.load.good_rps.round} req/s") }
    flagged = F.of(figures, rules: [*F::RULES, seen])
    assert_equal [["seen", "it read 2000 req/s"]], flagged.map { |v| [v.word, v.reason] }
  end

  def test_the_summary_keeps_the_flags_and_the_reasons_of_the_rules
    pool = Arena::Verdicts::Verdict.of("pool-exhausted", "5 threads, pool 3")
    summary = Arena::Results::Summary.of(Arena::Results::LoadFigures.from_h(engine), pool: pool, noisy: true)
    assert_equal %w[noisy pool-exhausted], summary.flags
    assert_equal "5 threads, pool 3", summary.pool
    assert_nil Arena::Results::Summary.of(Arena::Results::LoadFigures.from_h(engine), pool: Arena::Verdicts::Verdict.of("ok")).pool
  end

  def test_every_rule_answers_flag
    F::RULES.each { |rule| assert_respond_to rule, :flag }
    assert_equal F::RULES.uniq, F::RULES
  end
end
