# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # Rounds are stored under their name (issue 36): the plan's `rounds`, in
  # results.json as "rounds"; a document written before, with "repeat", still reads.
  class PlanRoundsTest < Minitest::Test
    def test_the_plan_stores_rounds_under_their_name
      plan = TestHelp.plan("--servers", "puma", "--rounds", "4")
      assert_equal 4, plan.rounds
      assert_equal 4, plan.to_h[:rounds]
      refute plan.to_h.key?(:repeat)
      assert_equal 2, TestHelp.plan("--servers", "puma", "--repeat", "2").rounds, "--repeat, the old flag, still sets them"
    end

    def test_a_document_reads_rounds_under_either_name
      assert_equal 4, Results::PlanRecord.from_h({"rounds" => 4}).rounds
      assert_equal 3, Results::PlanRecord.from_h({"repeat" => 3}).rounds, "a document written before"
    end
  end
end
