# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

module Arena
  # The whole tune's time and its shares (Tune::TimeBudget): the deadlines
  # each phase gets, on values, and the reserve planned from a plan.
  class TuneTimeBudgetTest < Minitest::Test
    cover "Arena::Tune::TimeBudget*"

    TimeBudget = Tune::TimeBudget

    def budget(**kw)
      TimeBudget.new(max_s: 600.0, per_candidate_s: 10.0, reserve_s: 120, scaling_s: 30.0, duration_s: 2.0, **kw).freeze
    end

    def test_each_phase_ends_where_the_time_kept_for_the_next_begins
      time = budget.start(1000.0)
      assert_nil budget.started
      assert time.frozen?
      assert_equal [1000.0, 1600.0], [time.started, time.deadline]
      assert_equal 1480.0, time.head_to_head_deadline, "the confirmation's reserve kept"
      assert_equal 1570.0, time.confirmation_deadline, "the cores rounds' time kept"
      assert time.scaling?
      refute budget(scaling_s: 0.0).scaling?
      assert_equal 1600.0, budget(scaling_s: 0.0).start(1000.0).confirmation_deadline
      # Kept for two configs: one that will not run in them gives its half back.
      two = budget(cores_configs: 2).start(1000.0)
      assert_equal [1570.0, 1585.0, 1570.0], [two.confirmation_deadline, two.confirmation_deadline(configs: 1), two.confirmation_deadline(configs: 3)]
      assert_equal 1570.0, time.confirmation_deadline(configs: 1), "kept for one: nothing to give back"
    end

    def test_the_searches_end_before_the_head_to_head_and_the_reserve
      time = budget.start(1000.0)
      # 3 finalists x 5 rounds x (-d + 1 s) = 45 s of head to head.
      assert_equal 1435.0, time.searches_end(3, now: 1000.0)
      assert_equal 1480.0, time.searches_end(1, now: 1000.0), "a lone finalist meets no one"
      # The looks (1.5 x 3 x 10 s) come first: the head to head gets what is left after them.
      assert_equal 1470.0, time.searches_end(3, now: 1425.0)
      assert_equal 1480.0, time.searches_end(3, now: 1450.0)
    end

    def plan(max_time)
      Planner::Builder.new(machine: Plan::Machine.new(cores: 2).freeze)
        .parse(["--servers", "puma", "--servers", "iodine", "-d", "2", "-w", "0.5", "--max-time", max_time.to_s], banner: "test").build
    end

    def planned(max_time)
      said = []
      detail = []
      time = TimeBudget.planned(plan(max_time), pace: nil, tune_runtime: false, given: true, say: said.method(:<<), detail: detail.method(:<<))
      [time, said, detail]
    end

    # The budget's line for a reserve of our own (the Planner's words).
    def planner_line(budget) = TimeBudget::Planner.new(plan: plan(600), pace: nil, tune_runtime: false).send(:kept_line, budget)

    def test_a_long_budget_keeps_the_confirmation_and_the_cores_rounds_whole
      time, said, detail = planned(3600)
      side = Tune::Estimate::BOOT_S[:rack] + 2 * 0.5 + 2.0 + 2.0 + 0.5 + 1.5
      assert_equal Tune::Scaling::ROUNDS * 2 * 2 * side, time.scaling_s, "the answer's config and your server's best, each on 1 and 2 cores"
      assert_equal 2, time.cores_configs, "kept for two configs: one that leaves gives its half back"
      assert_equal (Tune::Confirmation::MIN_ROUNDS * 3 * side + time.scaling_s).round, time.reserve_s
      assert_equal [3600.0, 2.0], [time.max_s, time.duration_s]
      assert_in_delta 2.5 + 2 * 2.5 + Tune::Estimate::BOOT_S[:rack] + Tune::Estimate::OVERHEAD_S, time.look_s, 1e-9,
        "the least look: a closed maximum and two open levels"
      assert_equal ["tune: #{time.reserve_s} of 3600 s kept for #{Tune::Confirmation::MIN_ROUNDS}+ confirmation rounds and the cores rounds; " \
        "the rest for the search"], said
      assert_equal "tune: the least search: puma 6, iodine 6 candidates", detail.last
    end

    # A slow app's turns take more than their loads: 150 of its requests
    # (Confirmation::START_REQUESTS) one at a time each turn, read from the
    # pace, in the rounds' time and in the cores rounds'.
    def test_a_slow_apps_rounds_count_its_requests_time
      pace = Plan::Pace::Reading.new(boot_s: 3.8, service_ms: 41.0, cpu_ms: 40.0)
      planner = TimeBudget::Planner.new(plan: plan(3600), pace: pace, tune_runtime: false)
      side = 3.8 + 1.0 + 2 * 0.5 + 2.0 + 2.0 + 0.5 + 1.5 + 150 * 0.040
      assert_in_delta Tune::Confirmation::MIN_ROUNDS * 3 * side, planner.send(:confirmation_s), 1e-6
      assert_in_delta Tune::Scaling::ROUNDS * 2 * 2 * side, planner.send(:scaling_s), 1e-6
    end

    # Where the looks would leave the rounds less than the fewest that
    # compare (3, and a round of slack), the rounds take that much, up
    # to MOST_SHARE: a slow app's tune ran 1 round and compared nothing.
    def test_a_short_budget_keeps_the_fewest_rounds_that_compare
      planner = TimeBudget::Planner.new(plan: plan(200), pace: nil, tune_runtime: false)
      side = Tune::Estimate::BOOT_S[:rack] + 2 * 0.5 + 2.0 + 2.0 + 0.5 + 1.5
      compared = (Stats::PairedMethod::MINIMUM + 1) * 3 * side
      assert_in_delta compared, planner.send(:compared_s), 1e-9
      assert_equal compared.round, planner.send(:reserve_s, 200, 100.0, 1000.0), "looks of 300 s leave nothing: 4 rounds, over SHARE's 80 s"
      assert_equal 60, planner.send(:reserve_s, 200, 100.0, 60.0), "never more than the rounds need"
      assert_equal 170, planner.send(:reserve_s, 200, 10.0, 1000.0), "the leftover of looks of 30 s when it is more"
    end

    def test_a_short_budget_gives_the_looks_their_time_and_the_rounds_their_share
      time, said, = planned(60)
      assert_equal 0.0, time.scaling_s, "the cores rounds never at the confirmation's cost"
      side = Tune::Estimate::BOOT_S[:rack] + 2 * 0.5 + 2.0 + 2.0 + 0.5 + 1.5
      assert_equal Tune::Scaling::ROUNDS * 2 * 2 * side, time.cores_rounds_s, "what they would take, for --resume"
      assert_equal 36, time.reserve_s, "MOST_SHARE of 60 s: 4 rounds would take more"
      need = (Tune::Confirmation::MIN_ROUNDS * 3 * side).round
      assert_equal "tune: 36 of 60 s kept for about #{(36 / (3 * side)).round} confirmation round " \
        "(#{Tune::Confirmation::MIN_ROUNDS} need #{need} s); the rest for the search", said.last
      assert_operator said.last.size, :<=, 100
      whole = Tune::TimeBudget.new(max_s: 600, reserve_s: (Tune::Confirmation::MIN_ROUNDS * 3 * side - 0.4).floor, scaling_s: 0.0)
      assert_includes planner_line(whole), "kept for #{Tune::Confirmation::MIN_ROUNDS}+ confirmation rounds", "a reserve a second short holds its 8"
      assert_operator said.size, :>, 1, "the whole tune's need said first"
    end
  end
end
