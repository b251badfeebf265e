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

    # --database is a value before the run and after it (issue 36): the
    # spec (its kind, its adapter gem) stays in Plan#database; the live
    # handle Database.open starts goes beside it, in live_database.
    def test_the_database_is_a_spec_and_its_live_handle_a_member_apart
      plan = TestHelp.plan("--servers", "puma").with(database: Launch::Database.spec("sqlite"))
      assert_equal ["sqlite", "sqlite3", {"kind" => "sqlite"}], [plan.database.kind, plan.database.adapter_gem, plan.to_h[:database]]
      assert_equal "pg", Launch::Database.spec("postgres").adapter_gem
      assert_nil Launch::Database.spec(nil)
      live = plan.database.open(run_dir: "/tmp/x")
      assert_equal [Launch::Database::Sqlite, "/tmp/x/arena.sqlite3"], [live.class, live.path]
      assert_instance_of Launch::Database::Postgres, Launch::Database.spec("postgres").open(run_dir: "/tmp/x")
      opened = plan.with(live_database: live)
      assert_equal [plan.database, live.to_h], [opened.database, opened.to_h[:database]], "recorded as the live one"
      assert_nil plan.live_database
      bare = plan.with(database: nil)
      assert_same bare, Launch::Database.open(bare, err: nil) { |yielded| yielded }, "no database: the plan as it was"
    end

    # --preset is a value too: the preset at its scale and the notes of its
    # skipped servers; results.json records its hash.
    def test_the_preset_is_a_value_recorded_as_its_hash
      plan = TestHelp.plan("--preset", "primes-2016", "--scale", "0.5", "--servers", "puma:workers=0")
      chosen = plan.preset
      assert_equal ["primes-2016", 0.5, "001_acf245167b555f6d.txt", []], [chosen.name, chosen.scale, chosen.seed, chosen.skipped]
      assert_equal Presets.fetch("primes-2016").to_h(0.5).merge("skipped" => []), plan.to_h[:preset]
      assert_equal chosen, plan.with(rounds: 2).preset
      assert chosen.frozen?
    end
  end
end
