# frozen_string_literal: true

require "json"
require "fileutils"
require "tmpdir"
require "socket"
require_relative "remote/loader_job"

module Arena
  # The remote side of a distributed run: `arena agent`, started by Arena over
  # SSH, speaking JSON lines on the SSH channel's stdin/stdout. It starts
  # servers (through the same adapters and ServerRun as a local run), samples
  # them, kills a worker, signals restarts, runs the load engine for a loader
  # host, and stops everything it started when its stdin closes (SSH dropped,
  # Ctrl-C on the caller) or on TERM/HUP. Nothing it starts outlives it.
  #
  # Protocol, one JSON object a line:
  #   request  {"id":N,"op":NAME,...}
  #   reply    {"id":N,"ok":true,...} or {"id":N,"ok":false,"error":"one line"}
  #   event    {"event":"load_done","handle":H,"document":{...}|"error":"..."}
  # The first request must be hello with the caller's version; a different
  # version is refused with one line and the agent exits 1.
  class Agent
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
      greeted = false
      while (line = @input.gets)
        request = parse(line) or next
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
      0
    rescue IOError
      0 # stdin closed under us (TERM/HUP): the same as its end
    ensure
      stop_all
    end

    # Called from the job threads too: replies and events never interleave.
    def emit(hash)
      @lock.synchronize do
        @output.puts(JSON.generate(hash))
        @output.flush
      end
    rescue IOError, SystemCallError
      nil # the caller is gone; the input loop ends and everything stops
    end

    private

    def parse(line)
      request = JSON.parse(line)
      return request if request.is_a?(Hash)
      emit(ok: false, error: "a request is a JSON object")
      nil
    rescue JSON::ParserError
      emit(ok: false, error: "not JSON: #{line[0, 60].inspect}")
      nil
    end

    def hello(request)
      if request["version"] != @version
        reply(request, ok: false, error: "version mismatch: agent is arena #{@version}, caller is #{request["version"]}")
        return false
      end
      reply(request, ok: true, version: @version, host: Socket.gethostname, cores: Machine.current.cores,
        environment: Environment.capture(machine: Machine.current, engine_version: Load::Engine.version))
    end

    def handle(request)
      result = public_send(:"op_#{request["op"]}", request)
      reply(request, ok: true, **result)
    rescue NoMethodError => e
      raise unless e.name.to_s.start_with?("op_")
      reply(request, ok: false, error: "unknown op #{request["op"].inspect}")
    rescue ServerRun::Failed => e
      reply(request, ok: false, error: e.message, log_tail: e.log_tail)
    rescue Error, KeyError, SystemCallError, ArgumentError => e
      reply(request, ok: false, error: e.message)
    end

    def reply(request, **fields) = emit({id: request["id"]}.merge(fields))

    public

    def op_free_port(r) = {port: Bind.free_port(r.fetch("host"))}

    # A server config by its LaunchSpec (settings, runtime, --env, rackup: its
    # command and config files are made here, on the host that runs it),
    # started and answering before the reply.
    def op_start(r)
      # A server host gives the server every core: no engine runs beside it.
      machine = Machine.new(cores: Machine.current.cores, shared: true).freeze
      launch = LaunchSpec.from_wire(r.fetch("launch"))
      adapter = launch.adapter(machine: machine)
      bind = Bind.new(kind: :tcp, host: r.fetch("host"), port: Integer(r.fetch("port"))).freeze
      name = "#{@count += 1}-#{adapter.key}"
      server = ServerRun.new(adapter: adapter, app: launch.app, bind: bind, dir: File.join(@dir, name), machine: machine,
        ready_timeout: r["ready_timeout"]&.to_f, env: launch.env)
      @servers[name] = server
      server.start
      {handle: name, argv: server.argv, boot_s: server.boot_s, pid: server.group.pid}
    end

    # nginx in front of a started server, listening on host:port, its
    # upstreams the server's own binds.
    def op_front(r)
      upstream = server(r)
      name = "#{@count += 1}-nginx"
      bind = Bind.new(kind: :tcp, host: r.fetch("host"), port: Integer(r.fetch("port"))).freeze
      nginx = Proxy::Nginx.new(upstreams: upstream.adapter.upstreams(upstream.bind), dir: File.join(@dir, name),
        machine: Machine.new(cores: Machine.current.cores, shared: true).freeze, bind: bind)
      @servers[name] = nginx.start
      {handle: name, front: nginx.to_h}
    end

    # A bare program (argv, env, dir), for what has no adapter.
    def op_spawn(r)
      name = "#{@count += 1}-spawn"
      group = ProcessGroup.new(r.fetch("argv"), env: r.fetch("env", {}), chdir: r.fetch("dir", @dir),
        log_path: File.join(@dir, "#{name}.log"))
      @servers[name] = Spawned.new(group)
      group.start
      {handle: name, pid: group.pid}
    end

    def op_ready(r)
      deadline = Clock.now + r.fetch("timeout", 30).to_f
      probe = HttpProbe.new(Bind.new(kind: :tcp, host: r.fetch("host"), port: Integer(r.fetch("port"))), timeout: 2)
      begin
        probe.get(r.fetch("path", "/"))
      rescue HttpProbe::Failure => e
        raise Error, "not ready: #{e.message}" if Clock.now > deadline
        sleep 0.05
        retry
      end
      {}
    end

    def op_pids(r) = {pids: server(r).pids}

    def op_probe_start(r)
      s = server(r)
      @samplers[r["handle"]]&.stop
      @samplers[r["handle"]] = s.sampler(interval: r.fetch("interval", 0.2).to_f, per_process: r["per_process"] == true).start
      {}
    end

    def op_probe_stop(r)
      sampler = @samplers.delete(r["handle"]) or raise Error, "no probe running for #{r["handle"]}"
      {summary: sampler.stop.to_h}
    end

    def op_worker_pids(r) = {pids: server(r).worker_pids}

    def op_memory(r) = {processes: RunningServer.memory(Array(r.fetch("pids")).map { |pid| Integer(pid) })}

    def op_kill_worker(r) = {victim: server(r).kill_worker}

    def op_restart(r) = {outcome: server(r).restart(r.fetch("mechanism").to_sym)}

    def op_signal(r) = {sent: server(r).group.signal(r.fetch("signal"))}

    def op_stop(r)
      @samplers.delete(r["handle"])&.stop
      @servers.delete(r["handle"])&.stop
      {}
    end

    # A loader: the engine starts, connects, and waits for go (LoaderJob).
    def op_load(r)
      name = "#{@count += 1}-load"
      args = shipped(r.fetch("args"), r.fetch("files", []), name)
      job = @jobs[name] = Remote::LoaderJob.new(argv: [Load::Engine.path, *args], dir: @dir, name: name)
      job.start(ready_timeout: r.fetch("ready_timeout", 30).to_f) { |result| emit({event: "load_done", handle: name}.merge(result)) }
      {handle: name}
    end

    def op_go(r)
      r.fetch("handles").each { |h| (@jobs[h] or raise Error, "no load #{h}").go }
      {}
    end

    def op_interrupt(r)
      (@jobs[r.fetch("handle")] or raise Error, "no load #{r["handle"]}").interrupt
      {}
    end

    private

    # The caller's files the engine reads (its request mix, a body), written
    # here; the arguments naming the caller's paths name these copies.
    def shipped(args, files, name)
      copies = files.each_with_index.to_h do |f, i|
        path = File.join(@dir, "#{name}-#{i}-#{File.basename(f.fetch("path"))}")
        File.binwrite(path, f.fetch("content").unpack1("m0"))
        [f.fetch("path"), path]
      end
      args.map { |a| copies.fetch(a, a) }
    end

    def server(r) = @servers.fetch(r.fetch("handle")) { raise Error, "no server #{r["handle"].inspect}" }

    def stop_all
      @samplers.each_value { |s| s.stop rescue nil } # rubocop:disable Style/RescueModifier
      @jobs.each_value(&:abort)
      @servers.each_value(&:stop)
      @samplers.clear
      @jobs.clear
      @servers.clear
      FileUtils.rm_rf(@dir) if @dir
    end

    # A bare spawned program, answering what the ops ask of a server.
    Spawned = Struct.new(:group) do
      def pids = group.tree

      def sampler(interval:, per_process:) = Probes::Sampler.new(pids: -> { pids }, interval: interval, per_process: per_process)

      def stop = group.stop
    end
  end
end
