# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/launch/session"

module Arena
  # After each run, a session waits for its server's leftover requests
  # (Scenarios::Settle#quiet) before anything else runs on its cores: a
  # Falcon kept up in the confirmation served ~0.7 s of them into the next
  # config's turn, and its machine-speed reading read 10 ms against 6. A
  # disruptive scenario (it killed the server) has nothing to wait for.
  class LaunchSessionQuietTest < Minitest::Test
    Settle = Struct.new(:quiets) do
      def quiet = self.quiets += 1
    end

    Ctx = Struct.new(:settle)

    Scenario = Struct.new(:settle, :disruptive, :calls) do
      def context(_session, workload:, load:) = Ctx.new(settle)

      def call(_ctx)
        calls << :call
        [:measured]
      end

      def disruptive? = disruptive
    end

    def session
      plan = Plan.new(load: Load::Options.new(**Load.defaults).freeze, machine: Plan::Machine.new(cores: 2), out_dir: Dir.tmpdir)
      adapter = Servers.fetch("puma").new(settings: {}, machine: plan.machine)
      Launch::Session.new(plan: plan, adapter: adapter, index: 1, starter: nil, engine: nil, store: nil, installation: nil)
    end

    def test_a_run_waits_for_its_server_to_go_quiet
      settle = Settle.new(0)
      scenario = Scenario.new(settle, false, [])
      assert_equal [:measured], session.run(scenario, nil)
      assert_equal 1, settle.quiets
      disruptive = Settle.new(0)
      session.run(Scenario.new(disruptive, true, []), nil)
      assert_equal 0, disruptive.quiets, "a killed server is not waited for"
    end
  end
end
