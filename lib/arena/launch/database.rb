# frozen_string_literal: true

require "tmpdir"
require "fileutils"
require "digest"
require_relative "../bundle/installation"
require_relative "../core"
require_relative "../plan/rails_files"
require_relative "database_program"
require_relative "postgres"

module Arena
  module Launch
    # `--database postgres|sqlite`: a throwaway database for a Rails app, made
    # for the run and gone after it. The app's DATABASE_URL points at it, its
    # `db:prepare` and `db:seed` run once before the first server, and the
    # user's own database (database.yml's) is never touched: every server gets
    # DATABASE_URL, which Rails prefers over database.yml. An app that is not
    # Rails (the tfb-rack preset's) gives its schema and rows as SQL in
    # arena-db.sql beside its config.ru, which Arena loads with psql.
    #
    #   Database.open(plan, err:) { |plan| ... }  the plan with DATABASE_URL in its env and the live
    #                                            database in plan.live_database; stopped and removed after
    module Database
      KINDS = %w[postgres sqlite].freeze
      SQL_FILE = "arena-db.sql"
      # The gem each kind needs in the app's bundle, and the kind to offer instead.
      ADAPTERS = {"postgres" => ["pg", "sqlite"], "sqlite" => ["sqlite3", "postgres"]}.freeze

      # The database a plan asks for (Plan#database): a value before and after
      # the run. Database.open makes its live handle (Postgres, Sqlite), which
      # the plan carries apart, in live_database.
      Spec = Struct.new(:kind, keyword_init: true) do
        # The gem the app's bundle needs for this kind (pg, sqlite3).
        def adapter_gem = ADAPTERS.fetch(kind).first

        def to_h = {"kind" => kind}

        # The live database of this kind, not yet started, in run_dir.
        def open(run_dir:) = ((kind == "postgres") ? Postgres : Sqlite).new(run_dir: run_dir)
      end

      def self.spec(kind) = kind && Spec.new(kind: kind).freeze

      module_function

      # Checked when the plan is built: one line, exit 2.
      def check!(kind, app)
        raise UsageError, "--database must be #{KINDS.join(" or ")}, not #{kind.inspect}" unless KINDS.include?(kind)
        unless app.rails? || sql_file(app)
          raise UsageError, "--database is for a Rails app (with config/application.rb and railties in its bundle), or an app " \
            "with its schema in #{SQL_FILE} beside config.ru: give --app"
        end
        raise UsageError, "--database sqlite: #{SQL_FILE} is loaded with PostgreSQL's psql; use --database postgres" if kind == "sqlite" && !app.rails?
        raise UsageError, "--database postgres: PostgreSQL's initdb not found (apt-get install postgresql)" if kind == "postgres" && !Postgres.bin_dir
        adapter!(kind, app)
        kind
      end

      # The app's bundle must hold the kind's adapter gem: without it the app's
      # db:prepare fails only after the database is up, its cause in a log.
      def adapter!(kind, app)
        gem, other = ADAPTERS.fetch(kind)
        lockfile = app.app_lockfile
        bundled = if File.file?(lockfile)
          File.read(lockfile).match?(/^    #{Regexp.escape(gem)} \(/)
        else
          File.read(app.app_gemfile).match?(/^\s*gem\s*\(?\s*["']#{Regexp.escape(gem)}["']/)
        end
        raise UsageError, "#{gem} is not in the app's bundle: add `gem \"#{gem}\"`, or use `--database #{other}`." unless bundled
      end

      def open(plan, err:)
        return yield(plan) unless plan.database
        live = plan.database.open(run_dir: File.join(plan.out_dir, "database"))
        begin
          live.start
          if plan.app.rails?
            err.puts "database: #{live.describe}; preparing the app (db:prepare db:seed)"
            Prepare.new(app: plan.app, env: (plan.env || {}).merge(live.env), log_path: File.join(plan.out_dir, "database", "prepare.log")).call
          else
            err.puts "database: #{live.describe}; loading #{sql_file(plan.app)}"
            live.load_sql(sql_file(plan.app))
          end
          yield plan.with(env: (plan.env || {}).merge(live.env).freeze, live_database: live)
        ensure
          live.stop
        end
      end

      # The app's own SQL (schema and rows) for an app that is not Rails; nil when it has none.
      def sql_file(app)
        return nil if app.builtin
        path = File.join(app.dir, SQL_FILE)
        File.file?(path) ? path : nil
      end

      # A Rails app's production pool (Plan::RailsFiles::Pool: database.yml's
      # max_connections or pool, as its Active Record reads them) as `adapter`
      # reads it with `env` over its own; nil for an app that is not Rails.
      def pool(adapter, app, env)
        return nil if app.builtin || app.dir.nil? || !app.rails?
        rails = Bundle::Installation.lock_versions(app.app_lockfile)["activerecord"] if File.file?(app.app_lockfile)
        Plan::RailsFiles.new(dir: app.dir).pool(env: adapter.env(app: app).merge(env).compact, rails: rails)
      end

      # Whether the servers of this app get PGAPPNAME (connections counted per config).
      def counted?(app) = app.rails? || !sql_file(app).nil?

      # The per-measurement watch of a live database (Plan#live_database; nil:
      # none, or one with nothing to count), for the server config labelled `label`.
      def watch(database, label) = database.respond_to?(:watch) ? database.watch(label) : nil

      # The app's own db:prepare and db:seed, once, in its bundle, against DATABASE_URL.
      class Prepare
        def initialize(app:, env:, log_path:)
          @app = app
          @env = env
          @log_path = log_path
        end

        def call
          env = @app.bundle_env.merge("RAILS_ENV" => "production", "RACK_ENV" => "production",
            "RUBYOPT" => nil, "RUBYLIB" => nil, "BUNDLE_BIN_PATH" => nil, "BUNDLER_SETUP" => nil).merge(@app.env || {}).merge(@env)
          DatabaseProgram.run(["bundle", "exec", "rake", "db:prepare", "db:seed"], log_path: @log_path, env: env, chdir: @app.dir,
            timeout: 180, what: "the app's db:prepare db:seed")
        rescue LoggedError => e
          raise LoggedError.new("--database: #{e.message} (log: #{@log_path})", log_tail: e.log_tail)
        end
      end
    end
  end
end
