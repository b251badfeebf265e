# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# Where a run's results go without --out: under the home directory, never
# the working directory (a run inside a checkout left generated Ruby where
# the linter looked, issue 31).
class DefaultOutTest < Minitest::Test
  NOW = Time.new(2026, 11, 25, 1, 2, 3)

  def test_results_go_under_home_not_the_working_directory
    Dir.mktmpdir do |home|
      assert_equal File.join(home, "arena-results", "20261125-010203"), Arena::Planner::Builder.default_out(env: {"HOME" => home}, now: NOW)
    end
  end

  def test_without_a_home_they_go_to_the_temporary_directory
    [{}, {"HOME" => ""}, {"HOME" => "/no/such/home"}].each do |env|
      assert_equal File.join(Dir.tmpdir, "arena-results", "20261125-010203"), Arena::Planner::Builder.default_out(env: env, now: NOW), env.inspect
    end
  end

  def test_a_plan_without_out_uses_it_and_out_still_wins
    Dir.mktmpdir do |dir|
      plan = Dir.chdir(dir) { Arena::Planner::Builder.new(machine: Arena::Plan::Machine.new(cores: 2)).parse([], banner: "t").build }
      assert plan.out_dir.start_with?(File.join(Dir.home, "arena-results") + "/"), plan.out_dir
      plan = Dir.chdir(dir) { Arena::Planner::Builder.new(machine: Arena::Plan::Machine.new(cores: 2)).parse(["--out", "here"], banner: "t").build }
      assert_equal File.join(File.realpath(dir), "here"), plan.out_dir
    end
  end
end
