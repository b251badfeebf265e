# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

module Arena
  # One name per meaning: --max-time (max_time) is the whole tune's bound;
  # a trial's scenario is bounded by what is left of its server's share,
  # its unit_bound_s. The trial never writes that into the user's max_time.
  class TuneUnitBoundTest < Minitest::Test
    cover "Arena::Tune::Trial*"

    def plan
      Planner::Builder.new(machine: Plan::Machine.new(cores: 2).freeze)
        .parse(["--servers", "puma", "--max-time", "600"], banner: "test").build
    end

    # The load a trial's scenario runs with, `left` seconds before its share ends.
    def trial_load(left)
      plan = self.plan
      trial = Tune::Trial.new(plan: plan, adapter: plan.servers.first, installation: nil, workload: plan.workloads.first, store: nil,
        engine: nil, starter: nil, memory_kb: 1024, deadline: Support::Clock.now + left)
      trial.send(:load)
    end

    def test_a_trials_share_is_its_own_bound_and_the_users_max_time_stays
      load = trial_load(42)
      assert_equal 600.0, load.max_time, "the whole tune's --max-time, as the user gave it"
      assert_in_delta 42.0, load.unit_bound_s, 1.0
      assert_equal 5.0, trial_load(1).unit_bound_s, "at least 5 s"
      assert_equal 600.0, trial_load(10_000).unit_bound_s, "at most the whole tune's"
      assert_equal 600.0, trial_load(10_000).max_time
    end

    def test_a_load_without_a_bound_of_its_own_is_bounded_by_the_whole_runs
      load = plan.load
      assert_equal 600.0, load.unit_bound_s
      bounded = load.unit_bounded(30.0)
      assert_equal [30.0, 600.0], [bounded.unit_bound_s, bounded.max_time]
      assert bounded.frozen?
      assert_equal 30.0, bounded.with(duration: 3.0).unit_bound_s, "a changed load keeps its bound"
      assert_equal load.to_h, bounded.to_h, "the recorded settings are the user's"
    end
  end
end
