# frozen_string_literal: true

require "optparse"

module Arena
  # Flags -> Plan. Shared by `run` and `check`; every value is checked here so
  # a bad flag fails before any process starts. A preset (--preset) supplies
  # defaults between DEFAULTS and the flags, so `@options` holds only what the
  # flags said and `build` merges the three.
  class PlanBuilder
    DEFAULTS = {
      servers: [].freeze, workloads: nil, scenarios: ["steady"], connections: 16, duration: 5, warmup: 1,
      keep_alive: "on", reps: 100, timeout: 10, threads: 1, bind: "tcp", repeat: 1, app: nil,
      out: nil, json: nil, port: nil, ready_timeout: 30, slo_ms: 100, step: 100, max_connections: 1000,
      max_time: 300, slow_clients: nil, slow_mode: "headers", front: nil, requests: 1000, levels: nil
    }.freeze

    attr_reader :options, :notes

    def initialize(machine: Machine.current)
      @machine = machine
      @options = {servers: []}
      @notes = []
    end

    def define(parser, load: true)
      parser.on("--app PATH", "a config.ru (run inside the bundle beside it); default: the built-in arena app") { |v| @options[:app] = v }
      parser.on("--servers LIST", "e.g. 'puma:workers=2,threads=5 unicorn:workers=3'; default: every installed server") { |v| @options[:servers] << v }
      parser.on("--workload LIST", Array, "built-in workload names, or paths PATH[=STATUS[:BODY]] for --app") { |v| @options[:workloads] = v }
      parser.on("--bind KIND", %w[tcp unix], "tcp (default) or unix") { |v| @options[:bind] = v }
      parser.on("--port N", Integer, "TCP port for the server (default: a free one)") { |v| @options[:port] = v }
      parser.on("--ready-timeout SEC", Float, "how long a server may take to answer (default 30)") { |v| @options[:ready_timeout] = positive(v, "--ready-timeout") }
      parser.on("--front PROXY", %w[nginx], "put a proxy in front of the server: nginx") { |v| @options[:front] = v }
      parser.on("--cpus MODE", Machine::MODES, "pinned (default): the engine on the last core, the server on the rest; shared: both on every core") { |v| @machine = @machine.with_cpus(v) }
      parser.on("--out DIR", "results directory (default ./arena-results/TIMESTAMP)") { |v| @options[:out] = v }
      return unless load
      parser.on("--preset NAME", "re-run a published comparison (arena presets lists them)") { |v| @preset = Presets.fetch(v) }
      parser.on("--scale F", Float, "with --preset: 1 = the original size; default: a few minutes") { |v| @scale = scale(v) }
      parser.on("--scenario LIST", Array, "steady (default), reps, count, rate, breakpoint, crash, restart, slow-clients") { |v| @options[:scenarios] = v }
      parser.on("-c N", Integer, "connections (default 16)") { |v| @options[:connections] = positive(v, "-c") }
      parser.on("-d SEC", Float, "seconds of load per measurement (default 5)") { |v| @options[:duration] = positive(v, "-d") }
      parser.on("-w SEC", Float, "warm-up seconds, not counted (default 1)") { |v| @options[:warmup] = v.negative? ? positive(v, "-w") : v }
      parser.on("-r N", Integer, "repetitions per connection for the reps scenario (default 100)") { |v| @options[:reps] = positive(v, "-r") }
      parser.on("-n N", Integer, "total requests for the count scenario (default 1000)") { |v| @options[:requests] = positive(v, "-n") }
      parser.on("--levels LIST", Array, "count, reps: run at each of these connection counts (default -c)") { |v| @options[:levels] = levels(v) }
      parser.on("--keep-alive MODE", %w[on off both], "on (default), off or both") { |v| @options[:keep_alive] = v }
      parser.on("--timeout SEC", Float, "response timeout (default 10)") { |v| @options[:timeout] = positive(v, "--timeout") }
      parser.on("--repeat N", Integer, "run each measurement N times, report the median") { |v| @options[:repeat] = positive(v, "--repeat") }
      parser.on("--json FILE", "also copy the results document to FILE") { |v| @options[:json] = v }
      parser.on("--slo MS", Float, "p99 objective for rate and breakpoint (default 100)") { |v| @options[:slo_ms] = within(v, 0.1, 600_000, "--slo") }
      parser.on("--step N", Integer, "breakpoint: connections added per level (default 100)") { |v| @options[:step] = within(v, 1, 10_000, "--step") }
      parser.on("--max-connections N", Integer, "breakpoint: highest level tried (default 1000)") { |v| @options[:max_connections] = within(v, 1, 20_000, "--max-connections") }
      parser.on("--max-time SEC", Float, "breakpoint: time for all levels (default 300)") { |v| @options[:max_time] = positive(v, "--max-time") }
      parser.on("--slow-clients N", Integer, "slow-clients: how many (default 2 x workers)") { |v| @options[:slow_clients] = within(v, 1, 10_000, "--slow-clients") }
      parser.on("--slow-mode MODE", SlowClients::MODES, "slow-clients: headers (default), upload or read") { |v| @options[:slow_mode] = v }
    end

    # The command's flags into this builder; what is left of argv stays there.
    def parse(argv, banner:, load: true)
      OptionParser.new do |parser|
        parser.banner = banner
        define(parser, load: load)
      end.parse!(argv)
      self
    end

    def build
      raise UsageError, "--scale needs --preset" if @scale && !@preset
      o = effective_options
      app = o[:app] ? AppSource.user(o[:app]) : AppSource.builtin
      o[:scenarios].each { |name| Scenarios.fetch(name) }
      Plan.new(
        app: app, servers: servers(app, o), workloads: workloads(app), scenarios: o[:scenarios].dup.freeze,
        load: LoadOptions.new(connections: o[:connections], duration: o[:duration], warmup: o[:warmup],
          keep_alive: o[:keep_alive], reps: o[:reps], timeout: o[:timeout], threads: o[:threads],
          slo_ms: o[:slo_ms], step: o[:step], max_connections: o[:max_connections], max_time: o[:max_time],
          slow_clients: o[:slow_clients], slow_mode: o[:slow_mode], requests: o[:requests],
          levels: o[:levels]&.dup&.freeze).freeze,
        bind: o[:bind], out_dir: File.expand_path(o[:out] || default_out), json_path: o[:json], repeat: o[:repeat],
        port: o[:port], ready_timeout: o[:ready_timeout], machine: @machine, front: front(o),
        preset: @preset&.to_h(preset_scale)&.merge("skipped" => @notes)
      ).freeze
    end

    private

    # DEFAULTS, then the preset at its scale, then whatever a flag set.
    def effective_options
      given = @options.reject { |_, v| v.nil? || v == [] }
      return DEFAULTS.merge(given) unless @preset
      preset = @preset.options_at(preset_scale).merge(scenarios: @preset.scenarios, app: @preset.app_path)
      DEFAULTS.merge(preset).merge(given)
    end

    def preset_scale = @scale || @preset.default_scale

    def front(o)
      return nil unless o[:front]
      raise Error, "nginx is not installed (apt-get install nginx-light)" unless Proxy::Nginx.binary
      o[:front]
    end

    # The flags' servers, else the preset's, else every installed one; then
    # what the plan's bind and front allow (a preset may set either).
    def servers(app, o)
      list = if @preset && @options[:servers].empty?
        preset_servers(app)
      else
        ServerList.parse(@options[:servers], machine: @machine)
      end
      list = Servers.all.select { |k| k.install(app).found }.map { |k| k.new(machine: @machine) } if list.empty?
      raise Error, "no server is installed (run `bundle install`, see README)" if list.empty?
      unsupported = list.reject { |s| s.supports?(:unix) } if o[:bind] == "unix"
      raise UsageError, "#{unsupported.map(&:key).join(", ")} cannot listen on a unix socket" if unsupported&.any?
      clustered = list.find { |s| s.ports > 1 }
      raise UsageError, "#{clustered.label} listens on several ports: it needs --front nginx" if clustered && !o[:front]
      list
    end

    # A preset's servers that are not installed are skipped with a note
    # instead of failing the run: the rest of the comparison still stands.
    def preset_servers(app)
      if @preset.app_gem && !Installation.gem(@preset.app_gem, app).found
        raise Error, "#{@preset.name}: skipped, #{@preset.app_gem} is not installed: #{@preset.setup}"
      end
      list, @notes = Presets.servers(@preset, app: app, machine: @machine)
      raise Error, "#{@preset.name}: none of its servers is installed (#{@notes.join("; ")})" if list.empty?
      list
    end

    def workloads(app)
      names = @options[:workloads] || @preset&.workloads || (app.builtin ? Workloads::DEFAULT : ["/"])
      names.map { |name| name.is_a?(Workload) ? name : Workloads.resolve([name], builtin_app: app.builtin).first }
    end

    def default_out = File.join("arena-results", Time.now.strftime("%Y%m%d-%H%M%S"))

    def scale(value)
      raise UsageError, "--scale must be greater than 0 and at most 1" unless value.positive? && value <= 1
      value
    end

    def levels(list)
      list.map { |v| Integer(v, exception: false)&.then { |i| within(i, 1, 20_000, "--levels") } || raise(UsageError, "--levels takes whole numbers") }
    end

    def within(value, low, high, flag)
      raise UsageError, "#{flag} must be between #{low} and #{high}" unless value.between?(low, high)
      value
    end

    def positive(value, flag)
      raise UsageError, "#{flag} must be greater than zero" unless value.positive?
      value
    end
  end
end
