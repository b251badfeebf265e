# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/session"
require "arena/agent"
require "json"
require "tmpdir"

module Arena
  # How a measurement is split across loader hosts, and the barrier: every
  # loader is started and ready before any is told to go. The channels are
  # fakes that record what they were asked (the real ones need SSH; the
  # namespace test runs them).
  class LoaderFleetTest < Minitest::Test
    class FakeChannel
      attr_reader :requests, :host

      def initialize(name, log)
        @host = Remote::Host.parse("ssh://#{name}")
        @log = log
        @requests = []
      end

      def on_event(&block) = @block = block

      def closed? = false

      def request(op, timeout: 60, **fields)
        @log << [@host.name, op]
        @requests << [op, fields]
        {"ok" => true, "handle" => "#{@host.name}-1"}
      end

      def fields = @requests.find { |op, _| op == "load" }.last

      # The argv the agent builds from those fields (as they cross the wire).
      def args
        @dir ||= Dir.mktmpdir("fleet-agent")
        Agent::LoadRequest.new(Agent::Fields.new(JSON.parse(JSON.generate(fields))), remote: "198.18.77.1").argv(@dir)
      end

      def cleanup = @dir && FileUtils.rm_rf(@dir)
    end

    def fleet(n)
      @log = []
      @channels = Array.new(n) { |i| FakeChannel.new("loader#{i}", @log) }
      @dir = Dir.mktmpdir("fleet")
      Remote::LoaderFleet.new(channels: @channels, allow: "198.18.77.1", dir: @dir)
    end

    def teardown
      FileUtils.rm_rf(@dir)
      @channels&.each(&:cleanup)
    end

    def flag(args, name) = args[args.index(name) + 1]

    def test_connections_requests_and_rate_split_evenly
      f = fleet(2)
      f.start("http://198.18.77.1:3000/x", Load::Settings.build(connections: 5, threads: 4, requests: 7, rate: 1001.0, duration: 2.0))
      assert_equal %w[3 2], @channels.map { |c| flag(c.args, "-c") }
      assert_equal %w[3 2], @channels.map { |c| flag(c.args, "-t") }, "never more threads than connections"
      assert_equal %w[4 3], @channels.map { |c| flag(c.args, "-n") }
      assert_equal %w[500.5 500.5], @channels.map { |c| flag(c.args, "-R") }
      @channels.each do |c|
        assert_includes c.args, "--histograms"
        assert_includes c.args, "--wait-go"
        assert_includes c.args, "--allow-remote"
        assert_equal "http://198.18.77.1:3000/x", c.args.last
      end
    end

    def test_every_loader_is_ready_before_any_goes
      fleet(3).start("http://198.18.77.1:3000/", Load::Settings.build(connections: 9, duration: 1.0))
      ops = @log.map(&:last)
      assert_equal %w[load load load go go go], ops
    end

    def test_remote_only_for_the_server_hosts_address
      fleet(2).start("http://10.9.9.9:3000/", Load::Settings.build(connections: 2, duration: 1.0))
      # The agent refuses any remote target but the one hello named.
      @channels.each { |c| assert_raises(Agent::Fields::Bad) { c.args } }
    end

    def test_refuses_fewer_connections_than_loaders
      assert_raises(Error) { fleet(3).start("http://198.18.77.1:1/", Load::Settings.build(connections: 2, duration: 1.0)) }
    end

    # The loader hosts do not have this host's files: the mix and the body travel with the request.
    def test_the_mix_and_body_files_travel_with_the_load_request
      f = fleet(2)
      mix = File.join(@dir, "mix.txt")
      body = File.join(@dir, "body")
      File.write(mix, "1 GET /a\n")
      File.binwrite(body, "\x00\xffpayload")
      f.start("http://198.18.77.1:1/", Load::Settings.build(connections: 2, duration: 1.0, mix_file: mix, body_file: body))
      @channels.each do |c|
        refute_includes c.fields.values.flatten, mix, "no path of this host goes to a loader"
        args = c.args
        assert_equal "1 GET /a\n", File.read(flag(args, "--mix")), "the agent's own copy"
        assert_equal "\x00\xffpayload".b, File.binread(flag(args, "--body"))
        refute_equal mix, flag(args, "--mix")
      end
    end

    # A profile's stages reach every loader at their share of each rate
    # (before, the loaders got no --profile and ran a closed load).
    def test_a_profile_s_rates_split_evenly_over_the_loaders
      f = fleet(3)
      f.start("http://198.18.77.1:3000/x", Load::Settings.build(connections: 64, profile: "0:300:2,300:300:3,1000:1000:0.5", duration: nil, warmup: 0))
      @channels.each do |c|
        assert_equal "0:100:2,100:100:3,333.333333333333:333.333333333333:0.5", flag(c.args, "--profile")
        refute_includes c.args, "-d"
      end
    end

    def test_the_agent_refuses_a_profile_that_is_not_the_engine_s_stages
      f = fleet(1)
      f.start("http://198.18.77.1:3000/x", Load::Settings.build(connections: 2, profile: "1:1:1 --allow-remote", duration: nil))
      assert_raises(Agent::Fields::Bad) { @channels.first.args }
    end
  end
end
