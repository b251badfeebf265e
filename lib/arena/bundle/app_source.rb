# frozen_string_literal: true

require "securerandom"
require_relative "../core"
require_relative "builtin"
require_relative "installation"
require_relative "overlay"

module Arena
  module Bundle
    # What a Rails app generated before 7.1 reads to log to STDOUT instead of
    # its log/production.log (AppSource#log_switch?), and what Arena says when it sets it.
    LOG_SWITCH = "RAILS_LOG_TO_STDOUT"
    LOG_NOTE = "the app logs to its log/production.log unless #{LOG_SWITCH} is set: Arena sets it, so these runs " \
      "leave that file alone and the app's lines (its errors too) are in each server's log in --out " \
      "(--env #{LOG_SWITCH}= keeps the file)"

    # The Rack app under test: the built-in arena app running in Arena's own
    # bundle, or a user's app (a directory or its config.ru) running inside
    # that app's bundle, or inside Arena's overlay of it (bundle/overlay.rb),
    # which adds the server gems the app does not bundle.
    #
    #   gemfile      the Gemfile the servers run under (BUNDLE_GEMFILE): the
    #                app's own, or the overlay's
    #   app_gemfile  the app's own Gemfile, only ever read
    #   origin       :builtin, :flag (--app) or :cwd (found in the working directory)
    #   env          what every server gets in its environment, over Arena's defaults
    #   knobs        false: --no-rails-knobs (a Rails app keeps its own RAILS_MAX_THREADS, WEB_CONCURRENCY)
    #   jobs         the job runner Puma runs inside it here (Plan::RailsFiles::Jobs: Solid Queue's
    #                plugin), as the app runs in production; nil: none
    #   bundle_settings  the app's Bundler settings (Bundle::Settings): groups left out, its gems' path
    AppSource = Struct.new(:rackup, :gemfile, :app_gemfile, :dir, :builtin, :origin, :overlay, :env, :knobs, :jobs,
      :bundle_settings,
      keyword_init: true) do
      def self.builtin
        gemfile = File.join(ROOT, "Gemfile")
        # An installed gem has no Gemfile: the built-in app's bundle is generated in the cache.
        unless File.file?(gemfile)
          gemfile = (@builtin_gemfile ||= Bundle::Builtin.new.call)
        end
        new(rackup: File.join(ROOT, "lib/arena/app/arena.ru"), gemfile: gemfile, app_gemfile: gemfile,
          dir: ROOT, builtin: true, origin: :builtin, env: APP_ENV).freeze
      end

      # PATH is an app directory (with config.ru) or a rackup file.
      def self.user(path, origin: :flag)
        full = File.expand_path(path)
        rackup = File.directory?(full) ? File.join(full, "config.ru") : full
        if File.directory?(full) && !File.file?(rackup)
          raise UsageError, "#{path}: no config.ru in this directory (--app takes an app directory or its config.ru)"
        end
        raise UsageError, "no such app or rackup file: #{path}" unless File.file?(rackup)
        dir = File.dirname(rackup)
        gemfile = File.join(dir, "Gemfile")
        raise UsageError, "#{path}: no Gemfile beside it (Arena runs the app inside its own bundle)" unless File.file?(gemfile)
        new(rackup: rackup, gemfile: gemfile, app_gemfile: gemfile, dir: dir, builtin: false, origin: origin,
          env: APP_ENV, bundle_settings: Bundle::Settings.read(dir)).freeze
      end

      # The app a run benchmarks: --app PATH, else the app in the working
      # directory, else the built-in one; with the user's --env, and (unless
      # only_app_bundle, a preset's own app, or the built-in app) Arena's
      # overlay for the servers the app does not bundle. `say` hears the lines
      # a person should see (which app, what the overlay did or could not do).
      #
      # servers: the --servers specs ("puma:workers=2 falcon"); the overlay
      # adds only those (every server when none is named).
      def self.for_run(path, env: {}, overlay: true, cwd: true, say: nil, servers: [], cache_root: Bundle::Overlay.cache_root)
        app = path ? user(path) : ((cwd && in_directory) || builtin)
        say&.call(app.announcement) if app.announcement
        unless app.builtin
          switch = app.log_switch?
          app = app.with_env(user_env(env, railties: app.railties, log_switch: switch))
          say&.call("arena: note: #{LOG_NOTE}") if switch && !env.key?(LOG_SWITCH)
        end
        return app if app.builtin || !overlay
        # One bundle for every server that can join, whatever --servers names this time.
        result = Bundle::Overlay.new(app: app, cache_root: cache_root, servers: server_classes(servers), candidates: Bundle::Overlay.adapters.all,
          say: say).call
        if result.dir
          say&.call("overlay bundle #{result.reused ? "reused" : "built in #{result.seconds} s"}: #{result.added.size} server(s) " \
            "added beside the app's bundle (#{result.dir})")
        end
        result.notes.each { |line| say&.call(line) }
        app.with_overlay(result)
      end

      def self.server_classes(specs)
        names = Array(specs).flat_map { |item| item.split(/\s+/) }.reject(&:empty?).map { |spec| spec.split(":", 2).first }
        adapters = Bundle::Overlay.adapters
        names.empty? ? adapters.all : names.uniq.map { |name| adapters.fetch(name) }
      end

      # Rails refuses to boot in production without a secret; a benchmark
      # needs none, so Rails >= 7.1 is told to make a throwaway one unless the
      # user gives one (--env SECRET_KEY_BASE=...); an older Rails (the app's
      # lock names railties < 7.1), which has no such switch, gets a random one.
      #
      # log_switch: the app logs to its log/production.log unless
      # RAILS_LOG_TO_STDOUT is set (#log_switch?); Arena sets it, unless the
      # user gives it (empty keeps the file), so runs leave that file alone.
      def self.user_env(env, railties: nil, log_switch: false)
        log = (log_switch && !env.key?(LOG_SWITCH)) ? {LOG_SWITCH => "1"} : {}
        return log.merge(env) if env.key?("SECRET_KEY_BASE") || env.key?("SECRET_KEY_BASE_DUMMY")
        old = railties && Gem::Version.new(railties) < Gem::Version.new("7.1")
        {"SECRET_KEY_BASE_DUMMY" => "1", **(old ? {"SECRET_KEY_BASE" => SecureRandom.hex(64)} : {}), **log}.merge(env)
      end

      # A Rails app whose production.rb logs to STDOUT only when
      # RAILS_LOG_TO_STDOUT is set (generated before Rails 7.1, which logs
      # to STDOUT always).
      def log_switch?
        return false unless rails?
        File.read(File.join(dir, "config", "environments", "production.rb")).match?(/^[^#\n]*\b#{LOG_SWITCH}\b/)
      rescue SystemCallError
        false
      end

      # The app's locked railties version, or nil.
      def railties = File.file?(app_lockfile) ? Bundle::Installation.lock_versions(app_lockfile)["railties"] : nil

      # --env KEY=VALUE
      def self.env_pair(text)
        key, value = text.split("=", 2)
        raise UsageError, "--env #{text.inspect}: write KEY=VALUE" if value.nil? || !key.match?(/\A[A-Za-z_][A-Za-z0-9_]*\z/)
        {key => value}
      end

      # The app in `dir` when it looks like one (config.ru and Gemfile), else nil.
      def self.in_directory(dir = Dir.pwd)
        return nil unless File.file?(File.join(dir, "config.ru")) && File.file?(File.join(dir, "Gemfile"))
        user(dir, origin: :cwd)
      end

      def lockfile = "#{gemfile}.lock"

      # What a process needs to run in the app's bundle: its Gemfile, and
      # with the overlay's, what the overlay needs beside it.
      def bundle_env
        env = {"BUNDLE_GEMFILE" => gemfile}
        (gemfile != app_gemfile && overlay&.env) ? env.merge(overlay.env) : env
      end

      # Where the app's gems are installed beside the system's (its vendor/bundle).
      def gem_dirs = [bundle_settings&.gem_dir].compact

      def app_lockfile = "#{app_gemfile}.lock"

      # The same app, its servers run under the overlay's Gemfile when it added any.
      def with_overlay(result)
        self.class.new(**to_struct_h, overlay: result, gemfile: result.gemfile || app_gemfile).freeze
      end

      # Rails' knobs follow each server config (lib/arena/servers/rails_knobs.rb) unless turned off.
      def rails_knobs? = knobs != false && rails?

      # A Rails app: its bundle has railties and it has config/application.rb.
      def rails?
        return false if builtin || dir.nil?
        File.file?(File.join(dir, "config", "application.rb")) && File.read(app_lockfile).match?(/^    railties \(/)
      rescue SystemCallError
        false
      end

      def without_knobs = self.class.new(**to_struct_h, knobs: false).freeze

      # Puma runs `jobs` inside it, with its gate set as in production.
      def with_jobs(jobs) = self.class.new(**to_struct_h, jobs: jobs, env: env.merge(jobs.env(on: true)).freeze).freeze

      # No jobs inside the server: the gate unset, whatever Arena's environment holds.
      def without_jobs(jobs) = self.class.new(**to_struct_h, jobs: nil, env: env.merge(jobs.env(on: false)).freeze).freeze

      def with_env(extra)
        self.class.new(**to_struct_h, env: env.merge(extra).freeze).freeze
      end

      # The line `arena run` starts with when it found the app in the working directory.
      def announcement
        "benchmarking the app in this directory (#{rackup}); --app chooses another" if origin == :cwd
      end

      def to_h
        {rackup: rackup, gemfile: app_gemfile, builtin: builtin, env: env.keys.sort,
         overlay: overlay&.to_h, jobs_in_server: jobs&.plugin}.compact
      end

      private

      def to_struct_h = members.to_h { |m| [m, self[m]] }
    end
  end
end
