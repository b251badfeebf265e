# frozen_string_literal: true

require "json"
require "fileutils"
require "tmpdir"
require "socket"
require_relative "../fronts/nginx"
require_relative "../launch/local_server"
require_relative "../launch/server_contract"
require_relative "../load/engine"
require_relative "../plan/machine"
require_relative "../remote/loader_job"
require_relative "../results/host_facts"
require_relative "../system/bind"
require_relative "../verify/http_parser"
require_relative "../verify/http_probe"
require_relative "fields"
require_relative "inbox"
require_relative "load_request"

module Arena
  # The remote side of a distributed run: `arena agent`, started by Arena over
  # SSH, speaking JSON lines on the SSH channel's stdin/stdout. It starts
  # servers (through the same adapters and Launch::LocalServer as a local run), samples
  # them, kills a worker, signals restarts, runs the load engine for a loader
  # host, and stops everything it started when its stdin closes (SSH dropped,
  # Ctrl-C on the caller), on TERM/HUP, or when the caller's heartbeat stops.
  # Nothing it starts outlives it (the Watchdog covers a SIGKILL).
  #
  # Protocol, one JSON object a line (at most Inbox::MAX_LINE bytes):
  #   request  {"id":N,"op":NAME,...}
  #   reply    {"id":N,"ok":true,...} or {"id":N,"ok":false,"error":"one line"}
  #   event    {"event":"load_done","handle":H,"document":{...}|"error":"..."}
  #   ping     {"op":"ping"} -> {"pong":true}, answered at once, even mid-request
  # The first request must be hello with the caller's version; a different
  # version is refused with one line and the agent exits 1. hello also names
  # the app directory (a rackup must lie inside it), the one remote address
  # a loader may target, and the heartbeat interval.
  #
  # Every field is checked for its type (Agent::Fields); what the agent runs
  # it builds itself from those fields: an adapter's argv, nginx's config, the
  # engine's argv (Agent::LoadRequest). There is no op that runs a program
  # the caller names.
  class Agent
    OPS = %w[free_port start front ready pids worker_pids memory probe_start probe_stop kill_worker restart signal stop load go
      interrupt].freeze
    SIGNALS = %w[TERM INT QUIT HUP USR1 USR2 TTIN TTOU WINCH KILL].freeze

    def initialize(input:, output:, log: $stderr, version: VERSION)
      @input = input
      @output = output
      @log = log
      @version = version
      @lock = Mutex.new
      @servers = {}
      @samplers = {}
      @jobs = {}
      @count = 0
    end

    def call
      @dir = Dir.mktmpdir("arena-agent-")
      @inbox = Inbox.new(@input, reply: method(:emit)).start
      greeted = false
      while (request = @inbox.next)
        unless greeted || request["op"] == "hello"
          reply(request, ok: false, error: "say hello first")
          next
        end
        if request["op"] == "hello"
          return 1 unless hello(request)
          greeted = true
          next
        end
        break if request["op"] == "bye" && reply(request, ok: true)
        handle(request)
      end
      @log.puts "arena agent: #{@inbox.lost}; stopping everything" if @inbox.lost
      0
    ensure
      @inbox&.stop
      stop_all
    end

    # Called from the job and inbox threads too: lines never interleave.
    def emit(hash)
      @lock.synchronize do
        @output.puts(JSON.generate(hash))
        @output.flush
      end
    rescue IOError, SystemCallError
      nil # the caller is gone; the input loop ends and everything stops
    end

    private

    def hello(request)
      if request["version"] != @version
        reply(request, ok: false, error: "version mismatch: agent is arena #{@version}, caller is #{request["version"].to_s[0, 40]}")
        return false
      end
      f = Fields.new(request)
      app_dir = f.string("app_dir", default: nil)
      @app_dir = app_dir && File.realpath(app_dir)
      @remote = f.string("load_target", pattern: /\A[0-9a-fA-F:.]{2,45}\z/, default: nil)
      @inbox.heartbeat(f.number("heartbeat_s", 0.05..600, default: nil))
      reply(request, ok: true, version: @version, host: Socket.gethostname, cores: Plan::Machine.current.cores,
        environment: Results::HostFacts.capture(machine: Plan::Machine.current, engine_version: Load::Engine.version))
    rescue Error, SystemCallError => e
      reply(request, ok: false, error: "hello: #{e.message}")
      false
    end

    # Whatever goes wrong is this request's error, with its id: the agent
    # and what it started carry on.
    def handle(request)
      op = request["op"]
      return reply(request, ok: false, error: "unknown op #{op.to_s[0, 40].inspect}") unless OPS.include?(op)
      reply(request, ok: true, **send(:"op_#{op}", Fields.new(request)))
    rescue Launch::LocalServer::Failed => e
      reply(request, ok: false, error: e.message, log_tail: e.log_tail)
    rescue Error, KeyError, SystemCallError, ArgumentError => e
      reply(request, ok: false, error: e.message)
    rescue => e
      @log.puts "arena agent: #{op}: #{e.class}: #{e.message}"
      reply(request, ok: false, error: "#{op} failed: #{e.class}: #{e.message[0, 200]}")
    end

    def reply(request, **fields) = emit({id: request["id"].is_a?(Integer) ? request["id"] : nil}.merge(fields))

    def op_free_port(f) = {port: System::Bind.free_port(f.own_host)}

    def tcp_bind(f) = System::Bind.new(kind: :tcp, host: f.own_host, port: f.integer("port", 1..65_535)).freeze

    # A server config by its Launch::Spec (settings, runtime, --env, rackup: its
    # command and config files are made here, on the host that runs it),
    # started and answering before the reply.
    def op_start(f)
      # A server host gives the server every core: no engine runs beside it.
      machine = Plan::Machine.new(cores: Plan::Machine.current.cores, shared: true).freeze
      launch = launch_spec(Fields.new(f.object("launch")))
      adapter = launch.adapter(machine: machine)
      bind = tcp_bind(f)
      name = "#{@count += 1}-#{adapter.key}"
      server = Launch::LocalServer.new(adapter: adapter, app: launch.app, bind: bind, dir: File.join(@dir, name), machine: machine,
        ready_timeout: f.number("ready_timeout", 0.1..3600, default: nil), env: launch.env)
      @servers[name] = server
      server.start
      {handle: name, argv: server.argv, boot_s: server.boot_s, boot_retry: server.boot_retry, pid: server.group.pid}
    end

    # Launch::Spec's wire form, each part checked; the rackup must lie inside
    # the app directory hello named.
    def launch_spec(l)
      rackup = l.string("rackup", default: nil)
      Launch::Spec.new(server: l.string("server", pattern: /\A[a-z][a-z0-9_-]{0,30}\z/), settings: l.settings("settings"),
        runtime: l.words("runtime", /\A[\w.=:+-]{1,64}\z/, max: 8, default: []), env: l.env("env"),
        rackup: rackup && inside_app_dir(rackup)).freeze
    end

    # Only a rackup inside the app directory hello named (symlinks resolved).
    def inside_app_dir(rackup)
      raise Fields::Bad, "field rackup: no app directory was named in hello" unless @app_dir
      path = File.realpath(File.expand_path(rackup, @app_dir))
      raise Fields::Bad, "field rackup: #{rackup} is outside the app directory #{@app_dir}" unless path.start_with?(File.join(@app_dir, ""))
      path
    end

    # nginx in front of a started server, listening on host:port, its
    # upstreams the server's own binds.
    def op_front(f)
      upstream = server(f)
      name = "#{@count += 1}-nginx"
      nginx = Fronts::Nginx.new(upstreams: upstream.adapter.upstreams(upstream.bind), dir: File.join(@dir, name),
        machine: Plan::Machine.new(cores: Plan::Machine.current.cores, shared: true).freeze, bind: tcp_bind(f))
      @servers[name] = nginx.start
      {handle: name, front: nginx.to_h}
    end

    def op_ready(f)
      deadline = Support::Clock.now + f.number("timeout", 0.1..600, default: 30)
      probe = Verify::HttpProbe.new(tcp_bind(f), timeout: 2)
      path = f.string("path", pattern: %r{\A/[\x21-\x7e]*\z}, default: "/")
      begin
        probe.get(path)
      rescue Verify::HttpProbe::Failure => e
        raise Error, "not ready: #{e.message}" if Support::Clock.now > deadline
        sleep 0.05
        retry
      end
      {}
    end

    def op_pids(f) = {pids: server(f).pids}

    def op_worker_pids(f) = {pids: server(f).worker_pids}

    def op_memory(f) = {processes: Launch::ServerContract.memory(f.integers("pids", 1..(1 << 22), max: 4096))}

    def op_probe_start(f)
      s = server(f)
      # null: at start and stop only (a throughput round's).
      interval = f.number("interval", 0.01..60, default: nil)
      per_process = f.boolean("per_process", default: false)
      @samplers[f.handle]&.stop
      @samplers[f.handle] = s.sampler(interval: interval, per_process: per_process).start
      {}
    end

    def op_probe_stop(f)
      sampler = @samplers.delete(f.handle) or raise Error, "no probe running for #{f.handle}"
      {summary: sampler.stop.to_record}
    end

    def op_kill_worker(f) = {victim: server(f).kill_worker}

    def op_restart(f) = {outcome: server(f).restart(f.string("mechanism", pattern: /\A[a-z_]{1,20}\z/).to_sym)}

    def op_signal(f) = {sent: server(f).group.signal(f.string("signal", pattern: /\A(#{SIGNALS.join("|")})\z/))}

    def op_stop(f)
      @samplers.delete(f.handle)&.stop
      @servers.delete(f.handle)&.stop
      {}
    end

    # A loader: the engine starts, connects, and waits for go (LoaderJob).
    # Once it has finished, its handle is gone: nothing signals its pid again.
    def op_load(f)
      argv = LoadRequest.new(f, remote: @remote).argv(@dir)
      name = "#{@count += 1}-load"
      job = @jobs[name] = Remote::LoaderJob.new(argv: argv, dir: @dir, name: name)
      job.start(ready_timeout: f.number("ready_timeout", 0.1..600, default: 30)) do |result|
        @lock.synchronize { @jobs.delete(name) }
        emit({event: "load_done", handle: name}.merge(result))
      end
      {handle: name}
    rescue Error
      @jobs.delete(name) if name
      raise
    end

    def op_go(f)
      f.words("handles", Fields::HANDLE, max: 256).each { |h| job(h).go }
      {}
    end

    def op_interrupt(f)
      job(f.handle).interrupt
      {}
    end

    def job(handle) = @lock.synchronize { @jobs[handle] } || raise(Error, "no load #{handle}")

    def server(f) = @servers.fetch(f.handle) { raise Error, "no server #{f.handle.inspect}" }

    def stop_all
      @samplers.each_value { |s| s.stop rescue nil } # rubocop:disable Style/RescueModifier
      @lock.synchronize { @jobs.values }.each(&:abort)
      @servers.each_value(&:stop)
      @samplers.clear
      @jobs.clear
      @servers.clear
      FileUtils.rm_rf(@dir) if @dir
    end
  end
end
