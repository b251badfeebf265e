# frozen_string_literal: true

require_relative "../../test_helper"
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
    assert_equal [], F.of(figures(loader_cpu_pct: Arena::Verdicts::Limits::LOADER_BUSY_PCT)).map(&:word), "at the limit is not over it"
    assert_equal %w[errors], F.of(figures(load: engine(errors: 100))).map(&:word)
  end

  # No answer and no error for the run: "unanswered", and its unanswered
  # requests do not also read as "errors"; a hung run that did fail some
  # requests outright is both.
  def test_unanswered_and_errors_apart
    silent = engine(completed: 0, sent: 40)
    silent["good"] = {"completed" => 0, "rps" => 0.0, "latency_us" => {"count" => 0}}
    silent["latency_us"] = {"count" => 0}
    assert_operator Arena::Results::LoadFigures.from_h(silent).error_pct, :>, Arena::Verdicts::Limits::ERROR_LIMIT_PCT
    assert_equal %w[unanswered few-samples], F.of(figures(load: silent)).map(&:word)
    failing = silent.merge("errors" => {"total" => 5, "connect_refused" => 5})
    flags = F.of(figures(load: failing)).map(&:word)
    assert_includes flags, "errors"
    refute_includes flags, "unanswered"
  end

  # One answer, then every connection hung: unanswered; with requests that
  # also failed outright, errors too (those are not the hung ones).
  def test_a_hung_loop_is_unanswered_and_its_own_failures_are_errors
    timeline = (0..9).map { |t| {"t" => t, "completed" => t.zero? ? 1 : 0, "errors" => 0} }
    hung = {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 10.0, "throughput_rps" => 0.1,
            "connections" => {"requested" => 32, "opened" => 32}, "requests" => {"sent" => 33, "completed" => 1},
            "latency_us" => {"count" => 1, "p50" => 900}, "timeline" => timeline,
            "good" => {"completed" => 1, "rps" => 0.1, "latency_us" => {"count" => 1, "p50" => 900}}}
    assert_equal %w[unanswered few-samples], F.of(figures(load: hung)).map(&:word)
    failed = hung.merge("requests" => {"sent" => 36, "completed" => 1}, "errors" => {"total" => 3, "connect_refused" => 3})
    assert_equal %w[errors unanswered few-samples], F.of(figures(load: failed)).map(&:word)
  end

  def test_the_envelope_samples_and_connections_flags
    killed = Struct.new(:oom_killed?).new(true)
    assert_equal %w[oom-killed], F.of(figures(envelope: killed)).map(&:word)
    assert_equal [], F.of(figures(envelope: Struct.new(:oom_killed?).new(false))).map(&:word)
    assert_equal %w[few-samples], F.of(figures(load: engine(completed: 50))).map(&:word)
    assert_equal [], F.of(figures(load: engine(completed: Arena::Verdicts::Limits::PERCENTILE_MIN_SAMPLES.fetch(:p99)))).map(&:word)
    reopened = engine.merge("keep_alive" => true, "connections" => {"requested" => 16, "opened" => 1016})
    assert_equal %w[server-closed], F.of(figures(load: reopened)).map(&:word)
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
