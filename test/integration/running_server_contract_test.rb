# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/session"
require_relative "../support/local_agent"

module Arena
  # Launch::ServerContract (lib/arena/launch/server_contract.rb) is one written interface
  # with two implementations: Launch::LocalServer here, Remote::Server through an
  # agent. The same checks run against both, the remote one through a real
  # `arena agent` on a pipe (what SSH would carry), so the two cannot drift
  # apart silently. One Puma cluster boot per implementation: the checks are
  # about a running server, not its boot.
  module RunningServerContract
    # The built-in app's /server shows ARENA_SERVER; the user's --env goes over the adapter's.
    ENV_CHECK = {"ARENA_SERVER" => "contract-check"}.freeze

    def adapter = Servers.fetch("puma").new(settings: {"workers" => 2, "threads" => 2}, runtime: Plan::Runtime.parse("yjit"))

    def test_the_running_server_contract
      server = start_server
      assert_empty Launch::ServerContract::METHODS.reject { |m| server.respond_to?(m) }, "every method of the interface"

      # The whole launch spec reached the server: its runtime (YJIT) and the user's --env.
      assert_equal Launch::Spec.of(adapter: adapter, app: Bundle::AppSource.builtin, env: ENV_CHECK), server.launch
      body = Verify::HttpProbe.new(server.bind, timeout: 10).get("/server").body
      assert_includes body, "yjit: on", "the runtime reached the server"
      assert_includes body, "server: contract-check", "--env reached the server"

      # Pids and worker pids, read on the server's own host. Puma answers
      # once one worker is up: the second may still be forking.
      deadline = Support::Clock.now + 20
      sleep 0.05 until server.worker_pids.size == 2 || Support::Clock.now > deadline
      pids = server.pids
      workers = server.worker_pids
      assert_equal 3, pids.size, "master and two workers: #{pids}"
      assert_equal 2, workers.size, "two workers: #{workers}"
      assert_empty workers - pids
      assert_equal local? ? pids : [], server.local_pids

      # Samples taken where the server runs, each process's figures kept when asked.
      sampler = server.sampler(interval: 0.05, per_process: true).start
      Verify::HttpProbe.new(server.bind, timeout: 10).get("/json")
      summary = sampler.stop
      assert_operator summary.pss_peak_kb, :>, 0
      per = summary.samples.last["processes"]
      assert_equal pids.sort, per.map { |p| p["pid"] }.sort, "per-process figures of the whole tree"
      assert_nil server.sampler(interval: 0.05).start.stop.samples.last["processes"], "and only when asked"

      memory = server.memory(workers)
      assert_equal workers.sort, memory.map { |m| m["pid"] }.sort
      assert(memory.all? { |m| m["pss_kb"].positive? && m["uss_kb"] <= m["rss_kb"] })

      assert_nil server.crash_line, "a healthy server's log says no crash"
      assert_equal :unsupported, server.restart(:no_such_mechanism)
      victim = server.kill_worker
      assert_includes workers, victim, "a worker is killed, not the master"
      assert_kind_of Array, server.log_tail
    ensure
      server&.stop
      assert_empty LocalAgent.alive(pids || []), "stop leaves nothing running" if pids
    end
  end

  class LocalRunningServerContractTest < Minitest::Test
    include RunningServerContract

    def local? = true

    def start_server
      @dir = Dir.mktmpdir("contract")
      Launch::LocalServer.new(adapter: adapter, app: Bundle::AppSource.builtin, bind: System::Bind.tcp, dir: @dir, env: ENV_CHECK).start
    end

    def teardown = FileUtils.rm_rf(@dir)
  end

  class RemoteRunningServerContractTest < Minitest::Test
    include RunningServerContract

    def local? = false

    def start_server
      @dir = Dir.mktmpdir("contract")
      @channel = LocalAgent.open(@dir)
      port = @channel.request("free_port", host: "127.0.0.1")["port"]
      Remote::Server.new(channel: @channel, adapter: adapter, app: Bundle::AppSource.builtin, dir: @dir, ready_timeout: 30, env: ENV_CHECK,
        bind: System::Bind.new(kind: :tcp, host: "127.0.0.1", port: port).freeze).start
    end

    def teardown
      @channel&.close
      FileUtils.rm_rf(@dir)
    end
  end
end
