# frozen_string_literal: true

require "optparse"
require "tmpdir"
require_relative "../bundle/app_source"
require_relative "../bundle/installation"
require_relative "../fronts/fronts"
require_relative "../launch/cgroups"
require_relative "../launch/database"
require_relative "../load"
require_relative "../load/settings"
require_relative "../plan/envelope"
require_relative "../plan/machine"
require_relative "../plan/plan"
require_relative "../plan/rails_files"
require_relative "../plan/requests_file"
require_relative "../plan/runtime"
require_relative "../plan/workloads"
require_relative "../presets/presets"
require_relative "../remote/options"
require_relative "../scenarios/base"
require_relative "../servers/base"
require_relative "config_file"
require_relative "preset_servers"
require_relative "server_list"

module Arena
  module Planner
    # Flags -> Plan. Shared by `run` and `check`; every value is checked here so
    # a bad flag fails before any process starts. A preset (--preset) supplies
    # defaults between DEFAULTS and the flags, so `@options` holds only what the
    # flags said and `build` merges the three.
    class Builder
      DEFAULTS = {
        servers: [].freeze, workloads: nil, scenarios: ["steady"], bind: "tcp", rounds: 6, app: nil,
        between_rounds: "keep", round_seed: nil, precision: nil,
        out: nil, json: nil, port: nil, ready_timeout: nil, front: nil
      }.freeze

      # DEFAULTS and every load setting's default (Load::TABLE holds the
      # scenarios' own rows, so it is read when a plan is built, not here).
      def self.defaults = DEFAULTS.merge(Load.defaults).freeze

      attr_reader :options, :notes, :remote, :dry_run, :max_time_given

      # say: where lines a person should see while planning go (which app, the overlay bundle).
      def initialize(machine: Plan::Machine.current, say: nil)
        @machine = machine
        @say = say
        @options = {servers: []}
        @notes = []
        @remote = Remote::Options.new # --server-host, --loader-hosts (docs/distributed.md)
      end

      # The flags of every command that plans a run; load: false (`check`,
      # which starts and verifies the servers but loads none) leaves out the rest.
      def define(parser, load: true)
        define_app_and_servers(parser)
        return unless load
        define_run_flags(parser)
        define_load_settings(parser)
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
        @options = (@config || Planner::ConfigFile.discover)&.under(@options) || @options # arena.yml: over the preset, under the flags
        o = effective_options
        # --max-time from a flag or arena.yml bounds the whole run (Plan::Budget); a preset's bounds its sweeps.
        @max_time_given = @options[:max_time]
        app = Bundle::AppSource.for_run(o[:app], env: o[:env] || {}, overlay: !@preset && !o[:only_app_bundle], cwd: !@preset, say: @say,
          servers: @options[:servers])
        app = app.without_knobs if o[:rails_knobs] == false
        app = jobs_in_server(app, off: o[:jobs_in_server] == false)
        if o[:database]
          raise UsageError, "--database starts a local database: not with --server-host" if @remote.server_host
          Launch::Database.check!(o[:database], app)
        end
        o[:scenarios].each { |name| Scenarios.fetch(name) }
        load = Load::Options.new(**Load::TABLE.to_h { |s| [s.name, o[s.name].is_a?(Array) ? o[s.name].dup.freeze : o[s.name]] }).freeze
        transport = load.client_transport
        list = servers(app, o, transport)
        Plan.new(
          app: app, servers: list, workloads: workloads(app), scenarios: o[:scenarios].dup.freeze,
          load: load,
          bind: o[:bind], out_dir: out_dir(o[:out] || default_out), json_path: o[:json], rounds: o[:rounds],
          round_seed: o[:round_seed] || Plan.new_seed, between_rounds: o[:between_rounds], precision: o[:precision], baseline: baseline(o[:baseline], list),
          port: o[:port], ready_timeout: o[:ready_timeout], machine: @machine, front: front(o, transport),
          preset: @preset && Presets::Chosen.new(preset: @preset, scale: preset_scale, skipped: @notes.dup.freeze).freeze,
          headers: (o[:headers] || {}).dup.freeze, env: (o[:env] || {}).dup.freeze, transport: transport,
          database: Launch::Database.spec(o[:database])
        ).freeze
      end

      # --baseline: a config's whole label, or a server's name when one config
      # of it runs; the label it names.
      def baseline(name, list) = name && named("--baseline", name, list).label

      # --aa's config: the first, or the one CONFIG names (as --baseline does).
      def aa(name, list) = (name == true) ? list.first : named("--aa", name, list)

      # The one server config of `list` an option names: its whole label, or a
      # server's name when one config of it runs (an A/A twin is never named).
      def named(option, name, list)
        found = list.select { |s| s.label == name }
        found = list.select { |s| s.key == name && !s.twin? } if found.empty?
        return found.first if found.size == 1
        raise UsageError, "#{option} #{name}: #{found.empty? ? "none" : "more than one"} of this run's servers " \
          "(#{list.map(&:label).join(", ")}); name one by its label"
      end

      # Results go under the home directory, never the working directory: a
      # run inside a checkout (Arena's own, or an app's) would otherwise leave
      # generated Ruby (servers' configs) where its linter and tests look.
      def self.default_out(env: ENV, now: Time.now)
        home = env["HOME"].to_s
        home = Dir.tmpdir if home.empty? || !File.directory?(home)
        File.join(home, "arena-results", now.strftime("%Y%m%d-%H%M%S"))
      end

      private

      # What runs: the app, its servers and how they are started.
      def define_app_and_servers(parser)
        parser.on("--app PATH", "an app directory or its config.ru (run in its bundle, plus an overlay for servers it lacks); default: the app in this directory, else the built-in one") { |v| @options[:app] = v }
        parser.on("--servers LIST", "e.g. 'puma:workers=2,threads=5 unicorn:workers=3'; default: every installed server") { |v| @options[:servers] << v }
        parser.on("--workload LIST", Array, "built-in workload names, or paths PATH[=STATUS[:BODY]] for --app ('/books?limit=2', '/books?limit=2=404'), or names from --requests (repeatable)") { |v| (@options[:workloads] ||= []).concat(v) }
        parser.on("--requests FILE", "a requests file (YAML): named requests and weighted mixes (README)") { |v| @options[:requests_file] = v }
        parser.on("--header 'NAME: VALUE'", "sent with every request, verification included (repeatable)") { |v| @options[:headers] = (@options[:headers] || {}).merge(Plan::Workloads.header(v)) }
        parser.on("--env KEY=VALUE", "in every server's environment (repeatable)") { |v| @options[:env] = (@options[:env] || {}).merge(Bundle::AppSource.env_pair(v)) }
        parser.on("--only-app-bundle", "only the servers in the app's own bundle (no overlay bundle)") { @options[:only_app_bundle] = true }
        parser.on("--bind KIND", %w[tcp unix], "tcp (default) or unix") { |v| @options[:bind] = v }
        parser.on("--port N", Integer, "TCP port for the server (default: a free one)") { |v| @options[:port] = port(v) }
        parser.on("--ready-timeout SEC", Float, "how long a server may take to answer (default: the adapter's, 30 s for most)") { |v| @options[:ready_timeout] = positive(v, "--ready-timeout") }
        parser.on("--front PROXY", Fronts::NAMES, "put a proxy in front of the server: #{Fronts::NAMES.join(", ")}") { |v| @options[:front] = v }
        parser.on("--cpus MODE", Plan::Machine::MODES, "pinned (default): the engine on the last core, the server on the rest; shared: both on every core") { |v| @machine = @machine.with_cpus(v) }
        parser.on("--config FILE", "an arena.yml to use (default: ./arena.yml when there is one)") { |v| @config = Planner::ConfigFile.load(v) }
        parser.on("--out DIR", "results directory (default ~/arena-results/TIMESTAMP)") { |v| @options[:out] = v }
        parser.on("--runtime LIST", "every server's Ruby runtime: #{Plan::Runtime::KNOWN} (comma-separated; added to each server's own +tail)") { |v| @runtime = (@runtime || Plan::Runtime::NONE).merge(Plan::Runtime.parse(v)) }
        parser.on("--no-jobs-in-server", "a Rails app that runs Solid Queue inside Puma in production (puma.rb's plugin, deploy.yml's SOLID_QUEUE_IN_PUMA) runs no jobs here (default: as in production)") { @options[:jobs_in_server] = false }
        parser.on("--no-rails-knobs", "a Rails app keeps its own RAILS_MAX_THREADS and WEB_CONCURRENCY (default: each follows the server config's threads and processes)") { @options[:rails_knobs] = false }
        parser.on("--envelope LIST", "every server's CPU quota and memory limit, in a cgroup of its own: cpus=N,memory=SIZE (e.g. cpus=1,memory=512MiB; needs root)") { |v| @options[:envelope] = Plan::Envelope.parse([@options[:envelope], v].compact) }
      end

      # What only a run that loads the servers reads: its database, hosts,
      # preset, scenarios, rounds and their order.
      def define_run_flags(parser)
        parser.on("--dry-run", "print the plan and how long it will take, then exit without starting anything") { @dry_run = true }
        parser.on("--database KIND", "a Rails app on a throwaway database: postgres (Debian's PostgreSQL, a unix socket) or sqlite (a file in the run directory); DATABASE_URL points at it, db:prepare and db:seed run once (an app that is not Rails: its arena-db.sql, postgres only)") { |v| @options[:database] = v }
        @remote.define(parser)
        parser.on("--preset NAME", "re-run a published comparison (arena presets lists them)") { |v| @preset = Presets.fetch(v) }
        parser.on("--scale F", Float, "with --preset: 1 = the original size; default: a few minutes") { |v| @scale = scale(v) }
        parser.on("--scenario LIST", Array, "#{Scenarios.registry.keys.join(", ")} (default steady)") { |v| @options[:scenarios] = v }
        parser.on("--rounds N", Integer, "rounds: every config x workload x scenario once per round, shuffled per round; figures are the median with a 95% interval (default 6)") { |v| @options[:rounds] = positive(v, "--rounds") }
        parser.on("--repeat N", Integer, "the same as --rounds (its old name)") { |v| @options[:rounds] = positive(v, "--repeat") }
        parser.on("--baseline CONFIG", "the reference of the tables' ratio column: a server config's label or name (default: the fastest row)") { |v| @options[:baseline] = v }
        parser.on("--aa [CONFIG]", "A/A: a server config (its label or name; default the first) runs twice, the second time as NAME~aa; the report says how far apart the two read, and warns when the test calls them different") { |v| @options[:aa] = v || true }
        parser.on("--seed N", Integer, "the rounds' order from this seed (default: a new one, recorded in results.json)") { |v| @options[:round_seed] = v }
        parser.on("--precision PCT", "more rounds until every config's 95% interval is within ±PCT of its median (e.g. 5%), or --max-time is spent") { |v| @options[:precision] = precision(v) }
        parser.on("--between-rounds MODE", %w[keep restart], "keep (default): servers stay up between rounds; restart: each round starts them afresh") { |v| @options[:between_rounds] = v }
        parser.on("--json FILE", "also copy the results document to FILE") { |v| @options[:json] = v }
      end

      # Every load setting from its one declaration (Load::TABLE: a row of
      # lib/arena/load/settings.rb, or a `setting` of the scenario that reads it).
      def define_load_settings(parser)
        Load::TABLE.each do |setting|
          parser.on(setting.flag, String, "#{setting.help}#{default_text(setting.default)}") { |v| @options[setting.name] = setting.cast(v) }
        end
      end

      def port(v)
        raise UsageError, "--port #{v}: a TCP port is between 1 and 65535" unless (1..65_535).cover?(v)
        v
      end

      # A directory, or one that can be made: a file (or a file on the way
      # to it) is refused now rather than when the first result is written.
      def out_dir(v)
        path = File.expand_path(v)
        existing = path
        existing = File.dirname(existing) until File.exist?(existing) || existing == "/"
        raise UsageError, "--out #{v}: #{existing} is a file, not a directory" unless File.directory?(existing)
        raise UsageError, "--out #{v}: #{existing} is not writable" unless File.writable?(existing)
        path
      end

      # DEFAULTS, then the preset at its scale, then whatever a flag set.
      def effective_options
        given = @options.reject { |_, v| v.nil? || v == [] }
        return self.class.defaults.merge(given) unless @preset
        preset = @preset.options_at(preset_scale).merge(scenarios: @preset.scenarios, app: @preset.app_path)
        self.class.defaults.merge(preset).merge(given)
      end

      def preset_scale = @scale || @preset.default_scale

      def front(o, transport)
        return nil unless o[:front]
        why = Fronts.missing(o[:front], transport)
        raise Error, why if why
        o[:front]
      end

      # The flags' servers, else the preset's, else every installed one; then
      # what the plan's bind and front allow (a preset may set either).
      def servers(app, o, transport)
        list = if @preset && @options[:servers].empty?
          preset_servers(app)
        elsif @preset
          # Named servers the preset's own bundle lacks are skipped with the
          # reason before anything starts (its database included).
          Planner::ServerList.parse(@options[:servers], machine: @machine)
          preset_servers(app, specs: @options[:servers].flat_map { |item| item.split(/\s+/) }.reject(&:empty?))
        else
          Planner::ServerList.parse(@options[:servers], machine: @machine)
        end
        list = Servers.all.select { |k| k.install(app).found }.map { |k| k.new(machine: @machine) } if list.empty?
        # A server the overlay could not add was reported in one line (Bundle::AppSource.for_run) and is skipped.
        list = list.select { |s| app.overlay&.entry(s.key)&.runnable? != false }
        raise Error, "no server is installed (run `bundle install`, see README)" if list.empty?
        list = list.map { |s| s.rebuilt(runtime: @runtime.merge(s.runtime)) } if @runtime
        # A server's own @tail wins over --envelope (and arena.yml's envelope:).
        list = list.map { |s| s.rebuilt(envelope: o[:envelope].merge(s.envelope)) } if o[:envelope]
        envelope_check(list)
        list += [aa(o[:aa], list).twin] if o[:aa]
        list.filter_map { |s| s.app_note(app) }.uniq.each { |note| @say&.call("arena: note: #{note}") }
        pool_notes(list, app, o[:env] || {})
        unsupported = list.reject { |s| s.supports?(:unix) } if o[:bind] == "unix"
        raise UsageError, "#{unsupported.map(&:key).join(", ")} cannot listen on a unix socket" if unsupported&.any?
        list = over_transport(list, o, transport)
        clustered = list.find { |s| s.ports > 1 }
        raise UsageError, "#{clustered.label} listens on several ports: it needs --front nginx" if clustered && !o[:front]
        list
      end

      # A Rails app's pool under a config's threads (a fixed max_connections
      # or pool in database.yml), said before anything starts.
      def pool_notes(list, app, env)
        list.filter_map { |s| Launch::Database.pool(s, app, env)&.exceeded(s.request_threads)&.then { |why| "#{s.label}: #{why}" } }
          .uniq.each { |note| @say&.call("arena: note: #{note}") }
      end

      # Solid Queue inside Puma (Plan::RailsFiles#jobs) runs here as it runs
      # in production, unless `off` (--no-jobs-in-server); said either way.
      def jobs_in_server(app, off:)
        return app if app.builtin || !app.rails?
        jobs = Plan::RailsFiles.new(dir: app.dir).jobs
        return app unless jobs&.production?
        unless jobs.bundled
          @say&.call("arena: jobs: #{jobs.source} loads Puma's #{jobs.plugin} plugin, but #{jobs.plugin} is not in the app's bundle: no jobs run here")
          return app.without_jobs(jobs)
        end
        @say&.call("arena: jobs: #{jobs.words(on: !off)}")
        off ? app.without_jobs(jobs) : app.with_jobs(jobs)
      end

      # Cgroups are checked now, before anything starts: without root or a
      # cgroup hierarchy with cpu and memory, one line and exit 2.
      def envelope_check(list)
        bounded = list.select { |s| s.envelope.bounded? }
        return if bounded.empty?
        raise UsageError, "--envelope wraps local servers only (not --server-host)" if @remote.server_host
        Launch::Cgroups.current
        bounded.flat_map { |s| s.envelope.notes(@machine) }.uniq.each { |note| @say&.call("arena: note: #{note}") }
      end

      # A server that cannot serve the transport itself (and has no front to do
      # it) is "unsupported, because ...": a finding said once, not an error; the
      # others run.
      def over_transport(list, o, t)
        return list if o[:front]
        unsupported, kept = list.partition { |s| s.transport_unsupported(t) }
        unsupported.each do |s|
          line = "#{s.label}: unsupported over #{t.name}: #{s.transport_unsupported(t)}"
          @notes << line
          @say&.call(line)
        end
        raise Error, "no server can serve #{t.name} itself: #{unsupported.map { |s| s.transport_unsupported(t) }.first}" if kept.empty?
        kept
      end

      # A preset's servers that are not installed are skipped with a note
      # instead of failing the run: the rest of the comparison still stands.
      def preset_servers(app, specs: @preset.servers)
        if @preset.app_gem && !Bundle::Installation.gem(@preset.app_gem, app).found
          raise Error, "#{@preset.name}: skipped, #{@preset.app_gem} is not installed: #{@preset.setup}"
        end
        list, @notes = Planner::PresetServers.call(@preset, app: app, machine: @machine, specs: specs)
        raise Error, "#{@preset.name}: none of its servers is installed (#{@notes.join("; ")})" if list.empty?
        list
      end

      def workloads(app)
        return Plan::RequestsFile.load(@options[:requests_file]).workloads(@options[:workloads]) if @options[:requests_file]
        names = @options[:workloads] || @preset&.workloads || (app.builtin ? Plan::Workloads::DEFAULT : ["/"])
        names = Plan::Workloads.rejoin_queries(names) unless app.builtin
        # A preset's own workloads by name (--preset tfb-rack --workload db,fortunes).
        own = (@preset&.workloads || []).select { |w| w.is_a?(Plan::Workload) }.to_h { |w| [w.name, w] }
        names = names.map { |name| own.fetch(name, name) }
        names.map { |name| name.is_a?(Plan::Workload) ? name : Plan::Workloads.resolve([name], builtin_app: app.builtin).first }
      end

      def default_text(value)
        return "" if value.nil?
        " (default #{(value.is_a?(Float) && value == value.to_i) ? value.to_i : value})"
      end

      def default_out = self.class.default_out

      def scale(value)
        raise UsageError, "--scale must be greater than 0 and at most 1" unless value.positive? && value <= 1
        value
      end

      def precision(value)
        pct = Float(value.to_s.delete_suffix("%"), exception: false)
        raise UsageError, "--precision takes a percentage between 0.1 and 50 (e.g. 5%)" unless pct&.between?(0.1, 50)
        pct
      end

      def positive(value, flag)
        raise UsageError, "#{flag} must be greater than zero" unless value.positive?
        value
      end
    end
  end
end
