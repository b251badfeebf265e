# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # The session's lines about the configs it compares: a line of at most 100
  # columns, the configs that do not fit on lines of their own.
  class TuneSessionTest < Minitest::Test
    def wrapped(head, items) = Tune::AnswerWords.listed(head, items)

    # --max-time counts from the session's start: the prelude (the app
    # asked what it serves and paced) is inside it.
    def test_the_time_budget_starts_before_the_prelude
      budget = Struct.new(:started) do
        def start(now = Support::Clock.now) = tap { self.started = now }
      end.new
      ground = Struct.new(:plan, :pace).new(Struct.new(:servers).new([]), nil)
      prelude = Object.new
      prelude.define_singleton_method(:call) { |_plan| ground.tap { sleep 0.05 } }
      plan = Plan.new(load: Load::Options.new(**Load.defaults).freeze, machine: Plan::Machine.new(cores: 2), out_dir: Dir.mktmpdir)
      before = Support::Clock.now
      status = Support::Affinity.stub(:pin_self, nil) do
        Tune::Prelude.stub(:new, ->(**) { prelude }) do
          Tune::TimeBudget.stub(:planned, budget) do
            Tune::Session.new(plan: plan, options: Tune::Session::Options.new(dry_run: true), err: StringIO.new, out: StringIO.new).call
          end
        end
      end
      assert_equal 0, status
      assert_operator budget.started, :>=, before
      assert_operator budget.started, :<, before + 0.05, "started before the prelude's 0.05 s"
    ensure
      FileUtils.rm_rf(plan.out_dir) if plan
    end

    def test_configs_that_fit_share_the_line
      assert_equal ["confirmation: answer iodine:workers=1, baseline puma:threads=3"],
        wrapped("confirmation:", ["answer iodine:workers=1", "baseline puma:threads=3"])
    end

    def test_a_config_that_does_not_fit_goes_on_a_line_of_its_own
      items = ["answer iodine:workers=1,threads=1", "runner-up itsi:workers=1,threads=5,fibers=false", "baseline puma:workers=0,threads=3"]
      lines = wrapped("confirmation:", items)
      assert_equal ["confirmation: answer iodine:workers=1,threads=1, runner-up itsi:workers=1,threads=5,fibers=false",
        "  baseline puma:workers=0,threads=3"], lines
      assert lines.all? { |l| l.size <= 100 }
    end
  end
end
