# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/session"
require "stringio"

module Arena
  # A distributed run follows --between-rounds as a local one does (issue
  # 36): the Runner's strategy comes from the plan, not from which starter
  # it was handed, so a remote run no longer restarts its servers every
  # round when the plan said keep.
  class RemoteRoundsTest < Minitest::Test
    DIR = TestHelp.tmpdir("remote-rounds")

    def runner(*flags)
      builder = Planner::Builder.new(machine: Plan::Machine.new(cores: 2)).parse(["--server-host", "ssh://198.18.77.1", "--servers", "puma", "--out", DIR, *flags], banner: "test")
      plan = builder.build
      session = Remote::Session.new(options: builder.remote, plan: plan, err: StringIO.new)
      Arena::Run::Runner.new(plan: plan, reporter: nil, store: nil, **session.runner_options)
    end

    def test_a_remote_run_keeps_its_servers_up_between_rounds
      assert runner.keep_up?, "--between-rounds keep (the default)"
      assert runner("--between-rounds", "keep").keep_up?
    end

    def test_a_remote_run_restarts_them_when_asked
      refute runner("--between-rounds", "restart").keep_up?
    end
  end
end
