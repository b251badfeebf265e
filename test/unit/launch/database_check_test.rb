# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "fileutils"
require "tmpdir"

# --database checks the app's bundle for its adapter before anything starts,
# and a preparation that fails says the first error line of its log, not a
# Process::Status (issue 31).
class DatabaseCheckTest < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/apps", __dir__)

  def app(name) = Arena::Bundle::AppSource.user(File.join(FIXTURES, name))

  def test_postgres_without_pg_in_the_apps_bundle_is_one_line_before_anything_starts
    error = assert_raises(Arena::UsageError) { Arena::Launch::Database.check!("postgres", app("rails")) }
    assert_equal "pg is not in the app's bundle: add `gem \"pg\"`, or use `--database sqlite`.", error.message
  end

  def test_sqlite_without_sqlite3_in_the_apps_bundle_is_one_line
    error = assert_raises(Arena::UsageError) { Arena::Launch::Database.check!("sqlite", app("rails")) }
    assert_equal "sqlite3 is not in the app's bundle: add `gem \"sqlite3\"`, or use `--database postgres`.", error.message
  end

  def test_an_app_with_both_adapters_passes_either
    assert_equal "sqlite", Arena::Launch::Database.check!("sqlite", app("rails_db"))
    assert_equal "postgres", Arena::Launch::Database.check!("postgres", app("rails_db")) if Arena::Launch::Database::Postgres.bin_dir
  end

  # Through the command line: exit 2, that line, nothing started.
  def test_the_plan_refuses_it_with_the_same_line
    error = assert_raises(Arena::UsageError) do
      Arena::TestHelp.plan("--app", File.join(FIXTURES, "rails"), "--only-app-bundle", "--servers", "puma", "--database", "postgres")
    end
    assert_match(/\Apg is not in the app's bundle/, error.message)
  end

  def test_a_failed_preparation_says_the_first_error_line_of_its_log
    Dir.mktmpdir do |dir|
      script = 'puts "== migrating"; warn "bin/rails aborted!"; ' \
        'warn "ActiveRecord::NoDatabaseError: We could not find your database: x"; warn "/app/x.rb:1:in `y`"; exit 3'
      error = assert_raises(Arena::LoggedError) do
        Arena::Launch::DatabaseProgram.run([RbConfig.ruby, "-e", script], log_path: File.join(dir, "prepare.log"), what: "the app's db:prepare db:seed")
      end
      assert_equal "the app's db:prepare db:seed failed (exit 3): ActiveRecord::NoDatabaseError: We could not find your database: x", error.message
    end
  end

  def test_the_first_error_line_is_the_exception_else_the_first_line_saying_error_else_the_last
    assert_equal "PG::ConnectionBad: no socket", Arena::Launch::DatabaseProgram.first_error_line(["rake aborted!", "PG::ConnectionBad: no socket", "x.rb:1"])
    assert_equal "FATAL:  role \"x\" does not exist", Arena::Launch::DatabaseProgram.first_error_line(["starting", "FATAL:  role \"x\" does not exist", "bye"])
    assert_equal "rake aborted!", Arena::Launch::DatabaseProgram.first_error_line(["ok", "rake aborted!", "Tasks: TOP => db:prepare"])
    assert_equal "last words", Arena::Launch::DatabaseProgram.first_error_line(["first", "last words", ""])
    assert_nil Arena::Launch::DatabaseProgram.first_error_line([])
  end

  RAILS81 = File.expand_path("../../fixtures/rails81", __dir__)

  # A copy of the Rails fixture app with Rails 8.1's generated puma.rb,
  # database.yml and deploy.yml, solid_queue in its lock (its files are
  # only read here).
  def rails81_app(dir, database: nil)
    FileUtils.cp_r(File.join(FIXTURES, "rails/."), dir)
    FileUtils.cp(Dir[File.join(RAILS81, "config", "*")], File.join(dir, "config"))
    File.write(File.join(dir, "config/database.yml"), database) if database
    lock = File.join(dir, "Gemfile.lock")
    File.write(lock, File.read(lock).sub(/^    railties \(/, "    solid_queue (1.2.4)\n    railties ("))
    dir
  end

  # The pool check reads database.yml's max_connections (Rails 8.1) or pool,
  # and says the key that ran dry.
  def test_the_pool_exhaustion_verdict_names_the_key_that_set_the_pool
    evidence = Arena::Verdicts::PoolExhaustion::Evidence.new(timeouts: 2, wait_s: 5.0)
    verdict = Arena::Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: 2, threads: 8, pool: 4, key: "max_connections")
    assert_equal "2 log lines with ActiveRecord::ConnectionTimeoutError (2 failed requests): 8 threads per process share a pool " \
      "of 4 connections; give the pool as many connections as threads (RAILS_MAX_THREADS, database.yml's max_connections) " \
      "or run fewer threads", verdict.reason
  end

  def test_a_fixed_max_connections_under_a_configs_threads_is_said_before_the_run
    Dir.mktmpdir do |dir|
      rails81_app(dir, database: "production:\n  adapter: sqlite3\n  max_connections: 4\n")
      said = []
      Arena::Planner::Builder.new(machine: Arena::Plan::Machine.new(cores: 2).freeze, say: ->(line) { said << line })
        .parse(["--app", dir, "--only-app-bundle", "--servers", "puma:workers=0,threads=8 puma:workers=0,threads=3"], banner: "t").build
      assert_includes said, "arena: note: puma:workers=0,threads=8,preload=false: 8 threads per process share database.yml's max_connections of 4: " \
        "the pool may run dry"
      assert_equal 1, said.grep(/max_connections/).size
    end
  end

  def test_the_pool_given_follows_max_connections_as_the_server_reads_it
    Dir.mktmpdir do |dir|
      app = Arena::Bundle::AppSource.user(rails81_app(dir))
      puma = Arena::Servers::Puma.new(settings: {"workers" => 0, "threads" => 7})
      assert_equal ["max_connections", 7], Arena::Launch::Database.pool(puma, app, {}).then { |p| [p.key, p.size] }
      assert_equal 2, Arena::Launch::Database.pool(puma, app, {"RAILS_MAX_THREADS" => "2"}).size
      assert_nil Arena::Launch::Database.pool(puma, Arena::Bundle::AppSource.builtin, {})
    end
  end

  # Solid Queue runs inside Puma in production (puma.rb's plugin, gated by
  # deploy.yml's SOLID_QUEUE_IN_PUMA): Puma's configs run it too, said;
  # --no-jobs-in-server leaves it out, said too.
  def test_solid_queue_in_puma_runs_as_in_production_unless_turned_off
    Dir.mktmpdir do |dir|
      rails81_app(dir)
      said = []
      build = lambda do |*flags|
        Arena::Planner::Builder.new(machine: Arena::Plan::Machine.new(cores: 2).freeze, say: ->(line) { said << line })
          .parse(["--app", dir, "--only-app-bundle", "--servers", "puma:workers=0,threads=3", *flags], banner: "t").build
      end
      plan = build.call
      bind = Arena::System::Bind.tcp(host: "127.0.0.1")
      argv = plan.servers.first.command(app: plan.app, bind: bind, dir: dir)
      assert_equal ["--plugin", "solid_queue"], argv[argv.index("--plugin"), 2]
      assert_equal "true", plan.servers.first.env(app: plan.app)["SOLID_QUEUE_IN_PUMA"]
      assert_equal "arena: jobs: Solid Queue runs inside Puma here, as in production (SOLID_QUEUE_IN_PUMA=true in " \
        "config/deploy.yml); --no-jobs-in-server leaves it out", said.grep(/jobs:/).last
      off = build.call("--no-jobs-in-server")
      refute_includes off.servers.first.command(app: off.app, bind: bind, dir: dir), "--plugin"
      env = off.servers.first.env(app: off.app)
      assert env.key?("SOLID_QUEUE_IN_PUMA")
      assert_nil env["SOLID_QUEUE_IN_PUMA"], "unset, whatever Arena's own environment holds"
      assert_equal "arena: jobs: Solid Queue left out of Puma (--no-jobs-in-server); production runs it inside Puma " \
        "(SOLID_QUEUE_IN_PUMA=true in config/deploy.yml)", said.grep(/jobs:/).last
      # Without the gem in the bundle Puma could not load the plugin: none, said.
      lock = File.join(dir, "Gemfile.lock")
      File.write(lock, File.read(lock).sub(/^    solid_queue \(.*\)\n/, ""))
      refute_includes build.call.then { |p| p.servers.first.command(app: p.app, bind: bind, dir: dir) }, "--plugin"
      assert_equal "arena: jobs: config/puma.rb loads Puma's solid_queue plugin, but solid_queue is not in the app's bundle: " \
        "no jobs run here", said.last
    end
  end
end
