# frozen_string_literal: true

require "bundler"
require "digest"
require "fileutils"
require "json"
require_relative "../core"
require_relative "../support/clock"
require_relative "app_gems"
require_relative "bundler_command"
require_relative "installation"
require_relative "reason"
require_relative "releases"
require_relative "result"
require_relative "settings"

require_relative "seal"

module Arena
  module Bundle
    # A bundle of Arena's own beside the app's, for the server gems the app
    # does not bundle. It lives in Arena's cache, keyed by the app's lock and
    # the servers, and is a generated Gemfile that `eval_gemfile`s the app's
    # and adds the missing gems (require: false, so Bundler.require in a Rails
    # app does not load them). It is locked from a copy of the app's
    # Gemfile.lock, so Bundler keeps the app's versions as a snapshot; every
    # gem the app locked is then checked to keep its version, and a server
    # that would move one is left out with the reason. The app's own files
    # are only read.
    #
    # Gems are resolved from the installed ones first (`--local`): Arena's own
    # bundle already installed the servers it knows, so this is quick and
    # needs no network. Only what is not installed is asked of the registry.
    #
    # The app's Bundler settings hold (Bundle::Settings): the overlay installs
    # none of the groups the app leaves out, and a server gem the app has
    # only in such a group (Puma in :test) is added like a missing one. An
    # app whose gems live under a path (vendor/bundle) is read there, never
    # written to. The cache key holds the settings and which of the app's
    # gems are installed, so a bundle the user fixes is seen.
    class Overlay
      FORMAT = 2
      GROUP = "arena_servers"
      RECORD = "arena-overlay.json"

      def self.cache_root(env: ENV)
        base = env["XDG_CACHE_HOME"].to_s.empty? ? File.join(Dir.home, ".cache") : env["XDG_CACHE_HOME"]
        File.join(base, "arena", "bundles")
      end

      # The server adapters a bundle may hold (each answers key, bundle_gems
      # and install): servers/ lies above bundle/ and hands its registry over
      # as it loads (Overlay.adapters = Servers), which answers all and fetch(name).
      class << self
        attr_writer :adapters

        def adapters = @adapters || raise(Error, "no server adapters registered")
      end

      # Arena adds a server at least as new as the one its adapter is tested
      # with (Arena's own lock), so an old release that happens to fit the
      # app's lock (or one that would have to be compiled) is not picked silently.
      def self.floors(lockfile = File.join(ROOT, "Gemfile.lock"))
        return {} unless File.file?(lockfile)
        Bundler::LockfileParser.new(File.read(lockfile)).specs.to_h do |spec|
          [spec.name, ">= #{spec.version}"]
        end
      end

      # say: hears one line before a build (which may take a while), none when cached.
      # candidates: the servers the bundle holds (every one that can join, so
      # one bundle serves any --servers set); servers: the ones this run asked
      # for, whose entries the result reports.
      def initialize(app:, servers: self.class.adapters.all, candidates: servers, cache_root: self.class.cache_root,
        bundler: nil, floors: self.class.floors, say: nil, settings: nil, app_gems: :read, releases: Releases.method(:fetch))
        @say = say
        @app = app
        @servers = servers
        @candidates = (candidates + servers).uniq
        @cache_root = cache_root
        @floors = floors
        @releases = releases
        @settings = settings || (@app.respond_to?(:bundle_settings) && @app.bundle_settings) || Settings.read(File.dirname(@app.app_gemfile))
        @bundler = bundler || BundlerCommand.new(env: self.class.env(@settings))
        @app_gems = (app_gems == :read) ? AppGems.read(@app.app_gemfile, env: app_env) : app_gems
      end

      # What a process run under the overlay's Gemfile needs in its
      # environment: the overlay's own config (not one the user points
      # BUNDLE_APP_CONFIG at), and the app's gems where its path holds them.
      def self.env(settings)
        env = {"BUNDLE_APP_CONFIG" => nil}
        return env unless settings.gem_dir
        rest = ENV["GEM_PATH"].to_s
        # A trailing separator keeps RubyGems' own default paths.
        env.merge("GEM_PATH" => rest.empty? ? "#{settings.gem_dir}#{File::PATH_SEPARATOR}" : [settings.gem_dir, rest].join(File::PATH_SEPARATOR))
      end

      def call
        started = Support::Clock.now
        # Without the app's lock there is nothing to keep; Installation says
        # to run bundle install for the app.
        return Result.new(dir: nil, gemfile: nil, entries: [].freeze, reused: false, seconds: 0.0).freeze unless File.file?(@app.app_lockfile)
        @app_versions = Bundle::Installation.lock_versions(@app.app_lockfile)
        fixed, wanted = classify
        asked = @servers.map(&:key)
        fixed = fixed.select { |e| asked.include?(e.server) }
        needed = wanted.slice(*asked)
        return Result.new(dir: nil, gemfile: nil, entries: fixed, reused: false, seconds: 0.0).freeze if needed.empty?
        dir = File.join(@cache_root, digest(wanted))
        FileUtils.mkdir_p(dir)
        entries, reused = exclusively(dir) { cached(dir, wanted, needed) || [build(dir, wanted), false] }
        entries = entries.select { |e| asked.include?(e.server) }
        gemfile = (entries.any? { |e| e.state == :added }) ? File.join(dir, "Gemfile") : nil
        Result.new(dir: dir, gemfile: gemfile, entries: (fixed + entries).sort_by(&:server).freeze, reused: reused,
          seconds: (Support::Clock.now - started).round(2), env: gemfile && self.class.env(@settings)).freeze
      end

      private

      def app_env = @app.respond_to?(:env) ? (@app.env || {}) : {}

      # Servers already settled (in the app's bundle, or system programs),
      # and {server key => gems missing from what the app's bundle loads}.
      def classify
        fixed = []
        wanted = {}
        @mains = []
        @loaded = loaded_gems
        @candidates.each do |klass|
          gems = klass.bundle_gems
          if gems.empty?
            fixed << Entry.new(server: klass.key, state: :system, gems: [], version: nil).freeze
          elsif gems.all? { |g| @loaded.include?(g) }
            fixed << Entry.new(server: klass.key, state: :app, gems: gems, version: @app_versions[gems.first]).freeze
          else
            wanted[klass.key] = gems.reject { |g| @loaded.include?(g) }
            @mains << gems.first
          end
        end
        [fixed, wanted]
      end

      # The app's locked gems its bundle loads under its settings; every
      # locked gem when its Gemfile could not be read here.
      def loaded_gems
        return @app_versions.keys.to_set unless @app_gems
        @app_gems.loaded(Bundle::Installation.lock_specs(@app.app_lockfile), @settings)
      end

      # Which of the app's locked gems are on disk: installing a group the
      # app left out, or a gem that was missing, makes another overlay.
      def installed_now
        @app_versions.select { |name, version| Bundle::Installation.gem_dir(name, version, [@settings.gem_dir].compact) }.keys.sort
      end

      def digest(wanted)
        lock = @app.app_lockfile
        parts = [FORMAT, RUBY_VERSION, Bundler::VERSION, @app.app_gemfile, File.read(@app.app_gemfile), File.read(lock),
          wanted.sort.map { |k, gems| [k, gems.map { |g| [g, @mains.include?(g) && @floors[g]] }] },
          @settings.to_h, @loaded.sort, installed_now, @app_gems&.to_h]
        Digest::SHA256.hexdigest(JSON.generate(parts))[0, 20]
      end

      def exclusively(dir)
        File.open(File.join(dir, ".lock"), File::RDWR | File::CREAT, 0o644) do |lock|
          lock.flock(File::LOCK_EX)
          yield
        end
      end

      # A finished overlay whose added gems are still installed. One whose
      # asked-for servers were not fetched is tried again: the registry may
      # answer now (an unfetched server nobody asked for waits until asked).
      def cached(dir, wanted, needed)
        record = File.join(dir, RECORD)
        return nil unless File.file?(record) && Seal.intact?(dir, sealed_files(dir))
        data = JSON.parse(File.read(record))
        entries = data.fetch("servers").map { |h| Entry.from_h(h) }
        return nil if entries.map(&:server).sort != wanted.keys.sort
        return nil if entries.any? { |e| e.state == :unfetched && needed.key?(e.server) }
        return nil unless entries.select { |e| e.state == :added }.all? { |e| installed?(dir, e.gems) }
        [entries, true]
      rescue JSON::ParserError, KeyError, NoMethodError
        nil
      end

      def installed?(dir, gems)
        lock = File.join(dir, "Gemfile.lock")
        File.file?(lock) && gems.all? { |g| Bundle::Installation.installed_spec?(lock, g) }
      end

      def build(dir, wanted)
        @say&.call("overlay bundle: adding #{wanted.keys.sort.join(", ")} beside the app's bundle (once for this lock)")
        FileUtils.rm_f(File.join(dir, RECORD))
        entries = resolve_all(dir, wanted) || wanted.map { |key, gems| resolve_one(dir, key, gems) }
        entries = install(dir, entries)
        File.write(File.join(dir, RECORD), JSON.pretty_generate("format" => FORMAT, "app_gemfile" => @app.app_gemfile,
          "servers" => entries.map(&:to_h)))
        Seal.write(dir, sealed_files(dir))
        entries
      end

      # The record and, where servers were added, the Gemfile and lock they run under.
      def sealed_files(dir) = [RECORD, "Gemfile", "Gemfile.lock", ".bundle/config"].select { |n| n == RECORD || File.file?(File.join(dir, n)) }

      # Everything at once from installed gems: the usual case, one `bundle
      # lock`. When that fails, the servers Bundler's answer names are set
      # aside (each tried alone later) and the rest tried together once more.
      def resolve_all(dir, wanted)
        attempt = lock(File.join(dir, "all"), wanted, local: true)
        return wanted.map { |key, gems| added(key, gems, attempt[:specs], local: true) } if attempt[:ok] && attempt[:changed].empty?
        suspects = wanted.select { |_, gems| Reason.named(attempt[:output], gems).any? }
        rest = wanted.reject { |key, _| suspects.key?(key) }
        return nil if attempt[:ok] || suspects.empty? || rest.empty?
        again = lock(File.join(dir, "all"), rest, local: true)
        return nil unless again[:ok] && again[:changed].empty?
        rest.map { |key, gems| added(key, gems, again[:specs], local: true) } +
          suspects.map { |key, gems| resolve_one(dir, key, gems) }
      end

      # One server alone: from installed gems, then from the registry.
      def resolve_one(dir, key, gems)
        local = lock(File.join(dir, "try", key), {key => gems}, local: true)
        return added(key, gems, local[:specs], local: true) if local[:ok] && local[:changed].empty?
        remote = lock(File.join(dir, "try", key), {key => gems}, local: false)
        return added(key, gems, remote[:specs], local: false) if remote[:ok] && remote[:changed].empty?
        if remote[:ok]
          other_release(dir, key, gems, Reason.from_lock(remote[:changed], remote[:specs], app_versions: @app_versions))
        elsif Reason.network?(remote[:output])
          local_why = local[:ok] ? nil : Reason.from_output(local[:output], app_versions: @app_versions)
          Entry.new(server: key, state: :unfetched, gems: gems, why: ["no registry reachable", local_why].compact.join("; ")).freeze
        else
          other_release(dir, key, gems, Reason.from_output(remote[:output], app_versions: @app_versions))
        end
      end

      # Before refusing a server whose newest conflicts with the app's lock:
      # its other releases whose own dependencies the app's versions meet,
      # newest first, a few at most, from the registry's list. The refusal
      # names the newest that would fit, if there is one.
      def other_release(dir, key, gems, why)
        main = gems.first
        text = @app_versions.key?(main) ? nil : @releases.call(main)
        return cannot(key, gems, why) unless text
        releases = Releases.parse(text)
        fits = Releases.fitting(releases, app_versions: @app_versions)
        fits.each do |version|
          attempt = lock(File.join(dir, "try", key), {key => gems}, local: false, exact: {main => version})
          return added(key, gems, attempt[:specs], local: false) if attempt[:ok] && attempt[:changed].empty?
        end
        cannot(key, gems, "#{why}; #{other_release_words(main, fits, Releases.compiled_only(releases, app_versions: @app_versions))}")
      end

      def other_release_words(main, fits, compiled)
        return "#{main} #{fits.first} would fit, but did not lock beside the app's gems" unless fits.empty?
        return "#{main} #{compiled} would fit, but has no #{Gem::Platform.local} build (it would be compiled)" if compiled
        "no released #{main} fits the app's lock"
      end

      # The final overlay: the servers that resolved, locked together, then
      # installed (from installed gems when none needs fetching).
      def install(dir, entries)
        ok = entries.select { |e| e.state == :added }
        return entries if ok.empty?
        local = ok.all? { |e| e.why.nil? }
        wanted = ok.to_h { |e| [e.server, e.gems] }
        # Each server at the version it resolved to alone, so the servers
        # locked together are the ones that were tried.
        exact = ok.to_h { |e| [e.gems.first, e.version] }
        base = local ? nil : installed_lock(dir, ok, exact)
        final = lock(dir, wanted, local: local, exact: exact, base: base)
        final = lock(dir, wanted, local: local, exact: exact) if base && !final[:ok]
        unless final[:ok] && final[:changed].empty?
          why = final[:ok] ? Reason.from_lock(final[:changed], final[:specs], app_versions: @app_versions) : Reason.from_output(final[:output], app_versions: @app_versions)
          return entries.map { |e| (e.state == :added) ? cannot(e.server, e.gems, "together with the other servers: #{why}") : e }
        end
        run = @bundler.call(File.join(dir, "Gemfile"), ["install", *(local ? ["--local"] : [])], log_path: File.join(dir, "install.log"))
        return entries.map { |e| (e.state == :added) ? e.with(why: nil).freeze : e } if run.ok
        return entries.map { |e| (e.state == :added) ? cannot(e.server, e.gems, "bundle install failed: #{Reason.install_failure(run.output)}") : e } if local
        # What had to come from the registry did not install: those servers
        # are left out, the rest is locked and installed again from what is here.
        state = Reason.network?(run.output) ? :unfetched : :cannot
        why = (state == :unfetched) ? "no registry reachable" : "bundle install failed: #{Reason.install_failure(run.output)}"
        install(dir, entries.map { |e| (e.state == :added && e.why) ? Entry.new(server: e.server, state: state, gems: e.gems, why: why).freeze : e })
      end

      # The lock of the servers that resolved from installed gems, locked
      # together from installed gems, for a lock that must fetch the rest to
      # start from; nil when there are none or they do not lock together.
      def installed_lock(dir, ok, exact)
        here = ok.select { |e| e.why.nil? }
        return nil if here.empty?
        attempt = lock(File.join(dir, "installed"), here.to_h { |e| [e.server, e.gems] }, local: true, exact: exact)
        File.join(dir, "installed", "Gemfile.lock") if attempt[:ok] && attempt[:changed].empty?
      end

      def added(key, gems, specs, local:)
        main = specs.find { |s| s.name == gems.first } || specs.find { |s| gems.include?(s.name) }
        # `why` marks, until installed, a server whose gems come from the registry.
        Entry.new(server: key, state: :added, gems: gems, version: main&.version&.to_s, why: local ? nil : "fetched").freeze
      end

      def cannot(key, gems, why) = Entry.new(server: key, state: :cannot, gems: gems, why: why).freeze

      # Writes Gemfile and a copy of the app's lock into dir, runs `bundle
      # lock`, and compares the app's gems with what was locked. base: the
      # lock to start from, the app's by default. A lock that must fetch one
      # server starts from the lock of the servers that resolved from
      # installed gems, so Bundler keeps their gems' versions: from the app's
      # lock alone it took the registry's newest of every gem the app does
      # not lock (openssl 3.3.3 over Ruby 3.1's own 3.0.1: a 40 s compile,
      # for Falcon, because WEBrick needed rackup 1.0.1 beside Rack 2).
      def lock(dir, wanted, local:, exact: {}, base: nil)
        FileUtils.mkdir_p(File.join(dir, ".bundle"))
        File.write(File.join(dir, ".bundle", "config"), config_text)
        gemfile = File.join(dir, "Gemfile")
        File.write(gemfile, gemfile_text(wanted, exact))
        FileUtils.cp(base || @app.app_lockfile, "#{gemfile}.lock")
        run = @bundler.call(gemfile, ["lock", *(local ? ["--local"] : [])], log_path: File.join(dir, local ? "lock-local.log" : "lock.log"))
        return {ok: false, output: run.output, changed: {}, specs: []} unless run.ok
        specs = Bundler::LockfileParser.new(File.read("#{gemfile}.lock")).specs
        locked = specs.to_h { |s| [s.name, s.version.to_s] }
        changed = @app_versions.reject { |name, version| locked[name] == version }.to_h { |name, v| [name, [v, locked[name]]] }
        {ok: true, output: run.output, changed: changed, specs: specs}
      end

      # The overlay's own Bundler config, written as Bundler writes one.
      def config_text = "---\n" + @settings.overlay_config(GROUP).map { |k, v| "#{k}: #{v.to_s.inspect}\n" }.join

      # A gem the app locks keeps its version, and one it declares (in a
      # group it leaves out) is declared again with the very same
      # requirement, as Bundler allows a gem twice only that way. Any other
      # gem: the version tried alone, else the floor.
      def requirement(name, exact)
        return @app_gems&.declared(name)&.fetch("requirement") || [] if @app_versions.key?(name)
        return ["= #{exact[name]}"] if exact[name]
        (@mains.include?(name) && @floors[name]) ? [@floors[name]] : []
      end

      def gemfile_text(wanted, exact = {})
        lines = wanted.values.flatten.uniq.sort.map do |name|
          ["  gem #{name.inspect}", *requirement(name, exact).map(&:inspect), "require: false"].join(", ")
        end
        <<~RUBY
          # Generated by Arena: the app's own Gemfile, plus the servers it does not
          # bundle. Arena never edits the app's files; remove this directory to
          # have it built again.
          eval_gemfile #{@app.app_gemfile.inspect}

          group :#{GROUP} do
          #{lines.join("\n")}
          end
        RUBY
      end
    end
  end
end
