# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/session"

module Arena
  # The starter contract (lib/arena/launch/starter_contract.rb) on both
  # starters, where a unit test can reach it: what each answers, the stop
  # that a second Ctrl-C cannot cut in two, and the options a remote run
  # cannot honour refused before anything starts. The servers themselves:
  # test/integration/starter_contract_test.rb.
  class StarterContractTest < Minitest::Test
    # A front whose stop is cut short by a second Ctrl-C, and a server
    # that records its stop: the failure path only fakes reach.
    class InterruptedFront
      def stop = raise(Interrupt)
    end

    class RecordingServer
      attr_reader :stopped

      def stop = @stopped = true
    end

    def starters
      plan = TestHelp.plan("--servers", "puma")
      {"local" => Launch::Starter.new(plan: plan),
       "remote" => Remote::Starter.new(plan: plan, channel: nil, address: "198.18.77.1")}
    end

    def test_both_starters_answer_the_contract
      starters.each do |name, starter|
        assert_empty Launch::StarterContract::METHODS.reject { |m| starter.respond_to?(m) }, "#{name}: every method of the contract"
      end
    end

    def test_a_second_ctrl_c_during_the_front_s_stop_still_stops_the_server
      starters.each do |name, starter|
        server = RecordingServer.new
        starter.instance_variable_set(:@front, InterruptedFront.new)
        starter.instance_variable_set(:@server, server)
        assert_raises(Interrupt) { starter.stop }
        assert server.stopped, "#{name}: the server is stopped too"
      end
    end

    def remote_check(*flags)
      builder = Planner::Builder.new(machine: Plan::Machine.new(cores: 2)).parse(["--server-host", "ssh://s", "--servers", "puma", *flags], banner: "test")
      builder.remote.check(builder.build)
    end

    # The agent puts nginx in front and serves plain HTTP/1.1: anything else
    # is refused in one line (exit 2), not run as something it was not.
    def test_a_remote_run_refuses_a_front_or_transport_it_cannot_honour
      skip "caddy is not installed here (the plan refuses it for that first)" unless Fronts::Caddy.binary
      error = assert_raises(UsageError) { remote_check("--front", "caddy") }
      assert_equal "--server-host puts nginx in front only: not --front caddy", error.message
    end

    def test_a_remote_run_refuses_a_transport_other_than_plain_http
      %w[tls h2].each do |name|
        error = assert_raises(UsageError) { remote_check("--transport", name, "--front", "nginx") }
        assert_equal "--server-host serves plain HTTP/1.1 only: not --transport #{name}", error.message
      end
    end

    def test_a_remote_run_keeps_nginx_and_plain_http
      skip "nginx is not installed" unless Fronts::Nginx.binary
      remote_check("--front", "nginx", "--transport", "http1")
    end
  end
end
