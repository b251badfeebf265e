# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/session"
require_relative "../support/local_agent"

module Arena
  # Launch::StarterContract (lib/arena/launch/starter_contract.rb) is one written
  # contract with two implementations: Launch::Starter here, Remote::Starter
  # through an agent. The same checks run against both, the remote one
  # through a real `arena agent` on a pipe (what SSH would carry): a start
  # with nginx in front, a restart the front follows, a stop that leaves
  # nothing. One Puma (threads only) per start: the checks are about the
  # starter, not the server's boot.
  module StarterContractChecks
    def setup = @dir = Dir.mktmpdir("starter")

    # The remote side's agent, if one was opened, then the run directory.
    def teardown
      @channel&.close
      FileUtils.rm_rf(@dir)
    end

    def plan = TestHelp.plan("--servers", "puma:threads=2", "--front", "nginx", "--out", @dir)

    def adapter = plan.servers.first

    def answers?(bind) = Verify::HttpProbe.new(bind, timeout: 10).get("/server").body.include?("puma")

    def test_the_starter_contract
      skip "nginx is not installed" unless Fronts::Nginx.binary
      starter = new_starter
      assert_empty Launch::StarterContract::METHODS.reject { |m| starter.respond_to?(m) }, "every method of the contract"

      first = starter.start(adapter, File.join(@dir, "01-puma"))
      assert_same first, starter.server
      assert_empty Launch::ServerContract::METHODS.reject { |m| first.respond_to?(m) }, "a RunningServer"
      refute_nil starter.front, "the plan's front started"
      assert answers?(starter.front.bind), "served through the front"
      first_pids = first.pids

      second = starter.restart(first)
      assert_same second, starter.server
      refute_same first, second
      assert answers?(starter.front.bind), "the front follows the restarted server"
      assert_empty LocalAgent.alive(first_pids), "the old server is gone"
      pids = second.pids
    ensure
      starter&.cleanup
      assert_nil starter&.server, "nothing up after cleanup"
      assert_empty LocalAgent.alive(pids || []), "stop leaves nothing running" if pids
    end
  end

  class LocalStarterContractTest < Minitest::Test
    include StarterContractChecks

    def new_starter = Launch::Starter.new(plan: plan)
  end

  class RemoteStarterContractTest < Minitest::Test
    include StarterContractChecks

    def new_starter
      @channel = LocalAgent.open(@dir)
      Remote::Starter.new(plan: plan, channel: @channel, address: "127.0.0.1")
    end
  end
end
