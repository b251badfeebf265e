# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

module Arena
  # One name per meaning in `arena run`: --max-time given is the whole run's
  # bound (max_time); a sweep's own bound, fitted before the run (Plan#load_for)
  # or lowered to the time left when it starts (Run::Strategy), is its
  # load's unit_bound_s. Neither is ever written into the user's max_time.
  class RunUnitBoundTest < Minitest::Test
    cover "Arena::Plan::Budget*"

    def fitted(*argv)
      builder = Planner::Builder.new(machine: Plan::Machine.new(cores: 2).freeze).parse(argv, banner: "test")
      plan = builder.build
      plan.with_budget(Plan::Budget.call(plan, given_s: builder.max_time_given, scenarios: Scenarios))
    end

    def plan = fitted("--servers", "unicorn:workers=2", "--workload", "sleep", "--scenario", "rate", "--max-time", "120")

    def test_a_fitted_sweep_is_bounded_by_its_own_bound_not_the_users_max_time
      load = plan.load_for("rate")
      assert_equal 120.0, load.max_time, "the whole run's --max-time, as the user gave it"
      assert_operator load.unit_bound_s, :<, 120
      assert_equal plan.budget.overrides.dig("rate", :max_time), load.unit_bound_s
      unbounded = fitted("--servers", "puma:workers=2,threads=4", "--workload", "server", "--scenario", "rate", "-d", "4")
      assert_equal [300.0, 300.0], [unbounded.load_for("rate").unit_bound_s, unbounded.load_for("rate").max_time]
    end

    Store = Struct.new(:cuts) do
      def add_cut(**cut) = cuts << cut
    end

    Reporter = Struct.new(:lines) do
      def timed(key, round, line) = lines << [key, round, line]
    end

    Slot = Struct.new(:adapter)

    def test_a_sweep_lowered_to_the_time_left_keeps_the_users_max_time
      plan = self.plan
      store = Store.new([])
      reporter = Reporter.new([])
      strategy = Run::Strategy.new(plan: plan, reporter: reporter, store: store, engine: nil, verifier: nil, scenarios: {}, new_starter: nil)
      unit = Run::Strategy::Unit.new(slot: Slot.new(plan.servers.first), workload: plan.workloads.first, scenario: "rate")
      need = plan.budget.unit_s.fetch(unit.key)
      # Started long enough ago that the sweep's estimate no longer fits, but a lowered bound does.
      strategy.instance_variable_set(:@started, Support::Clock.now - (120.0 - need + 10.0))
      load = strategy.send(:in_time, unit, 1, plan.load_for("rate"))
      assert_equal 120.0, load.max_time
      assert_operator load.unit_bound_s, :<, plan.load_for("rate").unit_bound_s
      assert_equal [{"max_time" => load.unit_bound_s}], store.cuts.map { |c| c[:lowered] }
      assert_match(/--max-time lowered to #{load.unit_bound_s.round} s/, reporter.lines.last.last)
    end
  end
end
