# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # A plan and its load settings change by `with`: a new frozen value, the
  # original as it was (issue 36: no caller rebuilds a Plan member by member).
  class PlanWithTest < Minitest::Test
    def test_plan_with_changes_only_what_it_names
      plan = TestHelp.plan("--servers", "puma", "--rounds", "2")
      other = plan.with(rounds: 5, env: {"A" => "1"}.freeze)
      assert_equal [5, {"A" => "1"}], [other.rounds, other.env]
      assert_equal plan.servers, other.servers
      assert_equal 2, plan.rounds, "the original unchanged"
      assert other.frozen?
      assert_raises(ArgumentError) { plan.with(no_such: 1) }
    end

    def test_load_options_with
      load = TestHelp.plan("--servers", "puma", "-d", "2").load
      longer = load.with(duration: 4.5)
      assert_equal [4.5, 2.0], [longer.duration, load.duration]
      assert_equal load.connections, longer.connections
      assert longer.frozen?
    end
  end
end
