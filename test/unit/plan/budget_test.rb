# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "timeout"
require "stringio"
require "tmpdir"

# Issue 35: a run says how long it will take before anything starts, and
# --max-time bounds the whole run. The estimate and the fit are pure
# functions of the plan, checked here on the issue's three commands.
class RunBudgetTest < Minitest::Test
  cover "Arena::Plan::Budget*"
  cover "Arena::Plan::Estimate*"

  MACHINE = Arena::Plan::Machine.new(cores: 2).freeze
  E = Arena::Plan::Estimate
  B = Arena::Plan::Budget

  def fitted(*argv)
    builder = Arena::Planner::Builder.new(machine: MACHINE).parse(argv, banner: "test")
    plan = builder.build
    Timeout.timeout(10) { plan.with_budget(B.call(plan, given_s: builder.max_time_given, scenarios: Arena::Scenarios)) }
  end

  # A default run of short scenarios is estimated, never cut: its start
  # (boot, verification and baseline per workload, the steady warm-up of
  # each unit, a stop, the reports), then each unit's settle, -w and -d
  # every round.
  def test_a_default_run_is_estimated_from_its_parts_and_not_cut
    plan = fitted("--servers", "puma:workers=2", "--workload", "server,json")
    fit = plan.budget
    measurement = E::MEASURE_S + E::FAST_S + 0.2 + 0.3
    assert_in_delta measurement, fit.unit_s.values.first, 1e-9
    baseline = 0.5 + E::FAST_S
    warm = E::MEASURE_S + 2.0 * 0.5
    start = E::REPORT_S + E::BOOT_S[:rack] + E::STOP_S + 2 * (E::VERIFY_S + E::FAST_S + baseline) + 2 * warm
    assert_in_delta start, fit.start_s, 1e-9
    assert_in_delta start + 6 * 2 * measurement, fit.seconds, 1e-9
    assert_nil fit.budget_s
    assert_equal [], fit.cuts
    assert_equal [6, 6], [fit.short_rounds, fit.long_rounds]
    assert_equal ["estimate: about #{B.seconds(fit.seconds)} for 1 server config x 2 workloads x steady, 6 rounds",
      "  start #{B.seconds(fit.start_s)} (boots, baselines, warm-ups, stops); steady #{B.seconds(fit.units.sum(&:seconds) / fit.units.size)} each, 2 x 6 rounds"],
      B.lines(plan)
  end

  # The issue's first command: a 1 s endpoint, 2 workers, --max-time 120.
  # The sweep runs once, its own bound lowered so the run fits, and the
  # sweep planned within that bound keeps a level at 50% (Verdicts::RatePlan).
  def test_the_slow_sweep_fits_its_max_time_in_one_round_and_keeps_50_percent
    plan = fitted("--servers", "unicorn:workers=2", "--workload", "sleep", "--scenario", "rate", "--max-time", "120")
    fit = plan.budget
    assert_equal 1, fit.long_rounds
    assert fit.given
    assert_operator fit.seconds, :<=, 120 - B::RESERVE_S
    bound = plan.load_for("rate").unit_bound_s
    assert_operator bound, :<, 120
    assert_operator bound, :>=, 90, "most of the budget goes to the sweep"
    assert_equal 120.0, plan.load.max_time, "the other scenarios' load is the plan's"
    assert_includes fit.cuts, "rate: 1 of 6 rounds (each repeats its measurement within: levels, a timeline)"
    assert_includes fit.cuts, "rate: --max-time #{bound.round} s a unit (from 300)"
    sweep = Arena::Verdicts::RatePlan.call(closed_max_rps: 2.0, unloaded_s: 1.0, budget_s: bound - 6, base_duration_s: 0.3)
    assert_operator sweep.levels.map(&:fraction).min, :<=, 0.5
    lines = B.lines(plan)
    assert lines.all? { |l| l.size <= 100 }, lines.join("\n")
    line = lines.join("\n").gsub(/\n +/, " ")
    assert_match(/--max-time 120 s \(the whole run\); cut: rate: 1 of 6 rounds/, line)
    # Too short for a p99 at 50%: said before it starts, with the time that would do.
    assert_match(/; rate on sleep: about \d\d requests a level, under the 100 a p99 needs \(its verdict may be "too few to judge"; 50%, 100% and 120% with 100 each take about 2\d\d s a sweep\)\z/, line)
    longer = fitted("--servers", "unicorn:workers=2", "--workload", "sleep", "--scenario", "rate", "--max-time", "300").budget
    refute longer.cuts.any? { |c| c.include?("p99 needs") }, longer.cuts.inspect
    assert_equal 1, plan.rounds_for(true)
    assert_equal 6, plan.rounds_for(false)
  end

  # The second: a fast endpoint's sweep at -d 4 without --max-time. Six
  # sweeps ran past 240 s; the default budget for a long scenario (the
  # default arena's 3 minutes) keeps as many rounds as fit.
  def test_a_long_scenario_without_max_time_gets_the_default_budget
    plan = fitted("--servers", "puma:workers=2,threads=4", "--workload", "server", "--scenario", "rate", "-d", "4")
    fit = plan.budget
    assert_equal B::DEFAULT_S, fit.budget_s
    refute fit.given
    assert_operator fit.long_rounds, :<, 6
    assert_operator fit.long_rounds, :>=, 2
    assert_operator fit.seconds, :<=, B::DEFAULT_S
    assert_equal 300.0, plan.load_for("rate").unit_bound_s, "its own bound stays"
    assert_match(/budget 180 s \(the default for a long scenario; --max-time to change\)/, B.line(plan))
  end

  # The third: two workloads' 20 s soaks; one round of a 300 s soak is
  # more than 3 minutes, so it is its own default budget.
  def test_soaks_take_fewer_rounds_and_a_long_soak_is_its_own_budget
    plan = fitted("--servers", "puma:workers=2,preload=true", "--workload", "leak,server", "--scenario", "soak", "--soak-time", "20")
    assert_operator plan.budget.seconds, :<=, B::DEFAULT_S
    assert_operator plan.budget.long_rounds, :<, 6
    long = fitted("--servers", "puma:workers=2", "--workload", "server", "--scenario", "soak").budget
    assert_equal 1, long.long_rounds
    assert_in_delta long.seconds, long.budget_s, 1e-9
    squeezed = fitted("--servers", "puma:workers=2", "--workload", "leak,server", "--scenario", "soak", "--soak-time", "60", "--max-time", "60")
    soak = squeezed.load_for("soak").soak_time
    assert_operator soak, :<, 30
    assert_operator squeezed.budget.seconds, :<=, 60
    assert_includes squeezed.budget.cuts, "soak: --soak-time #{soak.round} s a unit (from 60)"
  end

  # Short scenarios lose rounds last, and a budget nothing fits says so.
  def test_a_budget_too_small_cuts_the_short_rounds_and_says_it_does_not_fit
    fit = fitted("--servers", "puma:workers=2", "--workload", "server,json", "--scenario", "steady,rate", "--max-time", "30").budget
    assert_equal 1, fit.long_rounds
    assert_operator fit.short_rounds, :<, 6
    assert fit.cuts.any? { |c| c.start_with?("steady: ") }, fit.cuts.inspect
    assert fit.cuts.last.start_with?("does not fit 30 s: about "), fit.cuts.inspect
  end

  def test_at_run_time_a_unit_goes_is_lowered_to_the_time_left_or_is_skipped
    plan = fitted("--servers", "unicorn:workers=2", "--workload", "sleep", "--scenario", "rate", "--max-time", "120")
    fit = plan.budget
    key = fit.unit_s.keys.first
    need = fit.unit_s[key]
    assert_equal :go, B.now(fit, key: key, scenario: "rate", left_s: need)
    bound = plan.load_for("rate").unit_bound_s
    lowered = B.now(fit, key: key, scenario: "rate", left_s: need - 10)
    assert_equal({max_time: (bound - 10).floor.to_f}, lowered)
    assert_nil B.now(fit, key: key, scenario: "rate", left_s: need - bound + B::MIN_UNIT_S - 1)
    steady = fitted("--servers", "puma", "--workload", "server", "--max-time", "60").budget
    assert_nil B.now(steady, key: steady.unit_s.keys.first, scenario: "steady", left_s: 0.1), "no bound: skipped"
  end

  def test_the_water_level_shares_room_between_units
    assert_in_delta 30.0, B.water_level([100.0, 100.0], 60.0), 1e-9
    assert_in_delta 50.0, B.water_level([10.0, 100.0, 100.0], 110.0), 1e-9
    assert_in_delta 100.0, B.water_level([10.0, 100.0], 500.0), 1e-9
    assert_equal 0.0, B.water_level([], 10.0)
    assert_equal 0.0, B.water_level([5.0], -1.0)
  end

  # The built-in /sleep?ms=N says its latency; anything else is fast.
  def test_the_latency_a_plan_can_know
    builtin = Arena::Bundle::AppSource.builtin
    sleep = Arena::Plan::Workloads.builtin.fetch("sleep")
    assert_equal 1.0, E.latency_s(sleep, builtin)
    assert_equal E::FAST_S, E.latency_s(Arena::Plan::Workloads.builtin.fetch("server"), builtin)
    assert_in_delta 5.0 + 1.0, E.baseline_s(1.0), 1e-9
    assert_in_delta 0.5 + 0.002, E.baseline_s(0.002), 1e-9
    assert_in_delta 0.1 * 20 + 0.1, E.baseline_s(0.1), 1e-9
  end

  # What was cut, and what was not started, is said in the report.
  def test_the_report_says_what_was_cut_and_skipped
    plan = fitted("--servers", "unicorn:workers=2", "--workload", "sleep", "--scenario", "rate", "--max-time", "120")
    h = {"schema" => Arena::Results::SCHEMA, "plan" => JSON.parse(JSON.generate(plan.to_h)), "measurements" => [], "servers" => [],
         "cut" => [{"key" => "u sleep rate", "round" => 1, "need_s" => 110.0, "left_s" => 3.0},
           {"key" => "u sleep rate", "round" => 2, "need_s" => 110.0, "left_s" => 50.0, "lowered" => {"max_time" => 47.0}}]}
    notes = Arena::Results::Document.from_h(h).notes
    assert_equal "fitted to --max-time 120 s: #{plan.budget.cuts.join("; ")}", notes[0]
    assert_equal "shortened to end within --max-time: u sleep rate (round 2, --max-time 47 s)", notes[1]
    assert_equal "not started, --max-time would have passed first: u sleep rate (round 1)", notes[2]
    default = fitted("--servers", "puma", "--workload", "server", "--scenario", "rate", "-d", "4")
    h = {"schema" => Arena::Results::SCHEMA, "plan" => JSON.parse(JSON.generate(default.to_h)), "measurements" => [], "servers" => []}
    assert_match(/\Afitted to the default budget of 180 s: rate: \d of 6 rounds/, Arena::Results::Document.from_h(h).notes.last)
    assert_equal [], Arena::Results::Document.from_h({"schema" => Arena::Results::SCHEMA, "measurements" => [], "servers" => [], "plan" => {}}).notes
  end

  # --dry-run: the estimate on stderr, the plan unit by unit on stdout,
  # exit 0, and nothing started or written.
  def test_dry_run_prints_the_plan_and_the_estimate_and_starts_nothing
    Dir.mktmpdir do |dir|
      out = StringIO.new
      err = StringIO.new
      target = File.join(dir, "never")
      status = Arena::CLI.new(["run", "--servers", "unicorn:workers=2", "--workload", "sleep", "--scenario", "rate",
        "--max-time", "120", "--dry-run", "--out", target], out: out, err: err).run
      assert_equal 0, status
      assert_match(/\Aestimate: about 1 min \d+ s for 1 server config x 1 workload x rate, 6 rounds\n  start .*\n  --max-time 120 s \(the whole run\)/, err.string)
      assert_match(/^  unicorn:workers=2\S* sleep rate: about \d+ s x 1 round\(s\) \(--max-time \d+ s\)$/, out.string)
      assert_match(/^  cut: rate: 1 of 6 rounds/, out.string)
      refute File.exist?(target), "nothing written"
    end
  end
end
