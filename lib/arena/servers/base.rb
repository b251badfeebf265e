# frozen_string_literal: true

require_relative "../bundle/installation"
require_relative "../bundle/overlay"
require_relative "../core"
require_relative "../plan/envelope"
require_relative "../plan/machine"
require_relative "../plan/runtime"
require_relative "../support/registry"
require_relative "../system/procfs"
require_relative "../verdicts/crash_line"
require_relative "tuning"

module Arena
  module Servers
    # The adapter contract. One subclass per server, in a file of its own under
    # lib/arena/servers/, registered by `server "key", "description"`. An adapter only knows
    # how to describe its server: System::ProcessGroup starts and stops it, Launch::LocalServer waits for
    # it, Scenarios drive it.
    #
    #   install(app)            -> Installation (found?, version, bundle|system)
    #   bundle_gems             -> the gems the overlay adds when the app's bundle lacks them
    #   settings                -> {name => default}; a default may be a lambda of Machine
    #   allowed                 -> {name => values}: an Array of choices, a Range, or a
    #                              Pattern; checked when the plan is built
    #   command(app:, bind:, dir:) -> argv; may write its config file into dir
    #   env(app:)               -> extra environment for the spawn
    #   supports?(feature)      -> :unix
    #   upstreams(bind)         -> every bind it listens on ([bind] but for clusters of ports)
    #   restart_mechanisms      -> e.g. [:phased, :hot]; [] when it has none
    #   restart(group, name)    -> trigger a zero-downtime restart; :unsupported otherwise
    #   kill_worker(group)      -> SIGKILL one worker (or the only process); returns its pid
    #   stop_signal             -> what stops it cleanly ("TERM"; WEBrick through rackup: "INT")
    #   crash_patterns          -> the log lines that say it cannot run (Verdicts::CrashLine), read while
    #                              Launch::LocalServer waits for it to answer
    #   transient_boot_patterns -> the log lines that say its own start timed out, not the app:
    #                              a boot that exits with one is started once more ([] for most)
    # A setting's allowed text: a regular expression, and the words for it
    # in an error message. Answers include? like an Array or a Range.
    Pattern = Struct.new(:regexp, :words) do
      def include?(value) = regexp.match?(value.to_s)

      def to_s = words
    end

    class Base
      extend Support::Registry::Member
      # tunable, tune_start, slots, config_file: what `arena tune` knows of the server (tuning.rb).
      extend Tuning

      class << self
        def server(key, description) = declare(key, description, into: Servers)

        def settings = {}

        # What each setting may be, beyond its type (whole number, true/false,
        # text): checked in `new`, so a bad value fails when the plan is built,
        # in one line, before anything starts.
        def allowed = {}

        # Most servers are gems of the same name in the app's bundle.
        def gem_name = key

        def install(app) = Bundle::Installation.gem(gem_name, app)

        # The gems it needs from a bundle (the overlay adds those the app
        # lacks): its gem, or none for one installed otherwise (its own install).
        def bundle_gems = (method(:install).owner == Base.singleton_class) ? [gem_name] : []

        # The setting that is this server's worker-process count (workers,
        # count, pool, processes), or nil when it has none (worker-cost).
        def worker_setting = nil

        # The Ruby the server runs on; --runtime yjit needs "mri".
        def ruby_engine = "mri"

        # Why this server, as Arena starts it, is known to run fewer requests
        # at once than its settings declare (read from its source), added to
        # an under-concurrent finding; nil when nothing is known.
        def concurrency_note = nil
      end

      attr_reader :settings, :machine, :runtime, :envelope

      # The label's tail of an A/A twin (--aa): the same config run again
      # under a second name, to show how far apart two identical configs read.
      TWIN = "~aa"

      # runtime: YJIT and allocator settings (lib/arena/plan/runtime.rb), applied
      # through the environment and shown in the label. envelope: the CPU
      # quota and memory limit its process tree runs under (lib/arena/plan/envelope.rb).
      # twin: this is the A/A copy of the same config (its label ends in TWIN).
      def initialize(settings: {}, machine: Plan::Machine.current, runtime: Plan::Runtime::NONE, envelope: Plan::Envelope::NONE, twin: false)
        @twin = twin
        @machine = machine
        @runtime = runtime.check!(self)
        @envelope = envelope
        unknown = settings.keys - self.class.settings.keys
        unless unknown.empty?
          raise UsageError, "#{key}: unknown setting #{unknown.first.inspect} (known: #{self.class.settings.keys.join(", ")})"
        end
        @settings = self.class.settings.to_h do |name, default|
          value = settings.fetch(name) { default.respond_to?(:call) ? default.call(machine) : default }
          [name, coerce(name, value, default)]
        end.freeze
      end

      def key = self.class.key

      def label
        tail = "#{runtime.suffix}#{envelope.suffix}#{TWIN if twin?}"
        return "#{key}#{tail}" if settings.empty?
        "#{key}:#{settings.map { |k, v| "#{k}=#{v}" }.join(",")}#{tail}"
      end

      def twin? = @twin

      # The same config under the A/A twin's label.
      def twin = rebuilt(twin: true)

      # The same server with other settings (and the same runtime and
      # envelope), e.g. another worker count for worker-cost.
      def with_settings(changes) = rebuilt(settings: settings.merge(changes))

      # The same server with any of its parts replaced.
      def rebuilt(settings: self.settings, runtime: self.runtime, envelope: self.envelope, twin: twin?)
        self.class.new(settings: settings, machine: machine, runtime: runtime, envelope: envelope, twin: twin)
      end

      def command(app:, bind:, dir:)
        raise NotImplementedError, "#{self.class} must build its command line"
      end

      # A clean environment: what Arena's own `bundle exec` put there must not
      # leak into the server, which runs inside the app's bundle.
      def env(app:)
        app.bundle_env.merge(
          "RACK_ENV" => "production", "ARENA_SERVER" => label,
          "RUBYOPT" => nil, "RUBYLIB" => nil, "BUNDLE_BIN_PATH" => nil, "BUNDLER_SETUP" => nil,
          "BUNDLER_VERSION" => nil
        ).merge(Servers::RailsKnobs.env(self, app)).merge(app.env || {}).merge(runtime.env)
      end

      def supports?(feature) = feature == :unix

      # Why this server cannot serve a transport itself (nil: it can). Plain
      # HTTP/1.1 is every server's; TLS and HTTP/2 are declared by those that
      # terminate them. A front (--front) serves them in front of any server.
      def transport_unsupported(transport)
        return nil if transport.plain?
        "#{key} serves plain HTTP/1.1 only: put a front before it (--front nginx, caddy or thruster)"
      end

      # A server that makes its own certificate (and cannot be handed one)
      # says so: the engine then cannot verify it against the run's CA.
      def own_certificate? = false

      # Every address the server listens on. More than one (a Thin cluster)
      # needs a proxy in front to spread the load.
      def upstreams(bind) = [bind]

      def ports = 1

      # Worker processes doing the serving; 1 for a single-process server.
      def workers = settings.fetch("workers", 1)

      # The worker processes that each accept their own connections and
      # serve them on their own slots, so that how the kernel hands kept-alive
      # connections to them caps the slots the load can reach (Concurrency's
      # uneven spread); nil where one process or a router holds every
      # connection (Passenger's core, uWSGI's HTTP router, a single process).
      def accepting_workers = nil

      # The threads one process serves requests on (Rails' RAILS_MAX_THREADS
      # and its pool follow it); nil where there is no fixed figure (fibers,
      # a thread per connection).
      def request_threads = settings["threads"].is_a?(Integer) ? settings["threads"] : 1

      # The requests this config declares it serves at once (its `slots`
      # line, servers/tuning.rb), nil where it declares no fixed ceiling.
      def declared_slots = self.class.slots&.call(settings)

      def ready_timeout = 30

      # The log lines that say this server cannot run (Verdicts::CrashLine): read
      # while waiting for it to answer. An adapter adds its own words.
      def crash_patterns = Verdicts::CrashLine::GENERIC

      # The log lines that say the server's own start gave up on a busy
      # machine (a timeout of its own that no option lengthens), not that the
      # app cannot run: Launch::LocalServer starts a boot that exits with one once more,
      # and records why. Never an app's error: that would only fail twice.
      def transient_boot_patterns = []

      # What is known to keep this server from being ready in time on `app`
      # (said after "not ready after N s"); nil when nothing is.
      def slow_boot_hint(_app) = nil

      # One line a person should read before this server runs `app` (said
      # when the run is planned); nil when there is none.
      def app_note(_app) = nil

      # A warning about how the app's own config runs this server in
      # production, said under tune's answer; nil when there is none.
      def answer_note(_app) = nil

      # The line of this server's config file that runs the app's jobs
      # inside it as the rounds did (Bundle::AppSource#jobs), or nil.
      def jobs_line(_app) = nil

      def restart_mechanisms = []

      # The signal that stops the server cleanly (System::ProcessGroup sends it to
      # the leader first, then TERM and KILL to whatever is left).
      def stop_signal = "TERM"

      def restart(_group, _mechanism) = :unsupported

      # The default: kill a child of the leader when there is one (a worker),
      # else the leader itself (a single-process server).
      def kill_worker(group)
        victim = worker_pids(group).first || group.pid
        Process.kill("KILL", victim)
        victim
      rescue Errno::ESRCH
        nil
      end

      def worker_pids(group)
        group.tree.select { |pid| System::Procfs.stat(pid)&.ppid == group.pid }
      end

      def to_h = {name: key, label: label, settings: settings, runtime: runtime.to_a, envelope: (envelope.to_h unless envelope.empty?)}.compact

      private

      def bundle_exec(*argv) = ["bundle", "exec", *argv]

      def coerce(name, value, default)
        sample = default.respond_to?(:call) ? default.call(machine) : default
        check_allowed(name, typed(name, value, sample))
      end

      # Upper bounds no machine this runs on reaches: a typo (workers=100000,
      # threads=99999999999) fails at plan time, not by forking the machine
      # to its knees. Process counts, threads, then any other number.
      CEILINGS = {"workers" => 1024, "count" => 1024, "processes" => 1024, "pool" => 1024, "servers" => 256,
                  "threads" => 4096}.freeze
      CEILING = 100_000_000

      def typed(name, value, sample)
        case sample
        when Integer
          i = Integer(value.to_s, exception: false)&.then { |n| n.negative? ? nil : n } ||
            raise(UsageError, "#{key}: #{name} must be a whole number, not #{value.inspect}")
          limit = CEILINGS.fetch(name, CEILING)
          raise UsageError, "#{key}: #{name} must be at most #{limit}, not #{i}" if i > limit
          i
        when true, false
          return value if [true, false].include?(value)
          return true if %w[true yes 1 on].include?(value.to_s)
          return false if %w[false no 0 off].include?(value.to_s)
          raise UsageError, "#{key}: #{name} must be true or false, not #{value.inspect}"
        else
          value.to_s
        end
      end

      def check_allowed(name, value)
        rule = self.class.allowed[name]
        return value if rule.nil? || rule.include?(value)
        raise UsageError, "#{key}: #{name} must be #{describe_rule(rule)}, not #{value.inspect}"
      end

      def describe_rule(rule)
        case rule
        when Array then (rule.size == 2) ? rule.join(" or ") : "one of #{rule.join(", ")}"
        when Range then rule.end ? "#{rule.begin} to #{rule.end}" : "at least #{rule.begin}"
        else rule.to_s
        end
      end
    end

    extend Support::Registry

    def self.kind = "server"

    # The bundle holds the servers' gems; bundle/ lies below and asks for them here.
    Bundle::Overlay.adapters = self

    def self.load_all = super(__dir__)
  end
end
