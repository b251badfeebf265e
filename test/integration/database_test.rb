# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require_relative "../support/database_case"
require "arena"
require "timeout"

# A Rails app with Active Record (test/fixtures/apps/rails_db) on a
# throwaway database: PostgreSQL on the servers that run it, 0 errors, the
# connections counted equal to threads x processes (Rails' knobs gave each
# process a pool of its threads); threads above a small pool is pool
# exhaustion, said as such. Nothing is left behind (ArenaCase#teardown), and
# no database directory either.
class DatabaseTest < Arena::ArenaCase
  APP = File.join(ROOT, "test/fixtures/apps/rails_db")

  include Arena::DatabaseCase

  def setup
    super
    require_app_bundle(APP, "rails_db fixture's")
  end

  # Each config and its threads x processes. Passenger, uWSGI, Thin and
  # WEBrick run it too (docs in the closing note); four keep the test short.
  # Both tests run -d as given (--round-requests 0): a Rails app with a
  # database is slow enough that holding 2,000 requests lengthened each
  # round to up to 5 s, and nothing here is judged on a round's size.
  CONFIGS = {"puma:workers=2,threads=2" => 4, "unicorn:workers=2" => 2, "pitchfork:workers=2" => 2, "iodine:workers=2,threads=2" => 4}.freeze

  def test_postgres_on_every_server_that_runs_it
    skip "PostgreSQL is not installed (script/setup)" unless Arena::Launch::Database::Postgres.bin_dir
    outcome = arena("run", "--app", APP, "--database", "postgres", "--servers", CONFIGS.keys.join(" "), "--workload", "/items/7",
      "-c", "8", "-d", "1", "-w", "0.3", "--rounds", "1", "--round-requests", "0", timeout: 400)
    assert outcome.status.success?, outcome.describe
    assert_match(/database: throwaway PostgreSQL \d+ on a unix socket/, outcome.stderr)
    assert_equal CONFIGS.size, outcome.measurements.size, outcome.describe
    CONFIGS.each do |spec, slots|
      # rounds shuffle the order
      m, record = outcome.measurements.map { |x| [x, Arena::Results::Measurement.from_h(x)] }.find { |_, r| r.server.start_with?(spec) }
      refute_nil m, "#{spec} measured"
      assert_equal 0, arena_errors(m), "#{spec}: #{record.load.error_kinds}"
      db = record.database
      refute_nil db, "#{spec}: the database's figures"
      # /items/7 is one SELECT; the requests are the engine's, the warm-up's
      # counted apart. pg_stat_database's transactions read 0.41 to 0.64 (a
      # backend reports those up to 10 s late); statements with the warm-up's
      # requests estimated, 1.41 for a crowded Pitchfork; with a reading at the
      # warm-up's end, late by psql's start-up, 0.46 for a crowded Iodine.
      # Read once the server is quiet; the requests still in flight at the
      # deadline (at most -c 8) the server may never read: 83 requests read
      # 78 statements, 0.94, before the quiet wait, and 4-5 short after it.
      assert_includes (db.requests - 8)..(db.requests * 1.05), db.queries, "#{spec}: one SELECT per request: #{db.to_h}"
      assert_in_delta db.queries.to_f / db.requests, db.queries_per_request, 0.005, "#{spec}: #{db.to_h}"
      # A thread opens its connection with its first request: in a 1 s load
      # one of Iodine's four once served none (fresh clone, session 6). More
      # than half the slots still shows both the threads and the processes.
      assert_operator db.connections, :<=, slots, "#{spec}: connections at most threads x processes"
      assert_operator db.connections, :>, slots / 2, "#{spec}: connections from every process and thread setting"
    end
    puma = outcome.results["servers"].find { |x| x["label"].start_with?("puma") }
    assert_equal ["env", "RAILS_MAX_THREADS=2", "WEB_CONCURRENCY=2"], puma["command"].first(3)
    assert_match(/puma:workers=2,threads=2,\S* [\d.]+ ready in [\d.]+s with RAILS_MAX_THREADS=2 WEB_CONCURRENCY=2/, outcome.stderr)
    assert_equal "postgres", outcome.results.dig("plan", "database", "kind")
  end

  def test_threads_above_a_small_pool_is_pool_exhaustion
    outcome = arena("run", "--app", APP, "--database", "sqlite", "--servers", "puma:workers=0,threads=6", "--workload", "/hold?ms=200",
      "--env", "RAILS_MAX_THREADS=2", "--env", "DB_CHECKOUT_TIMEOUT=0.3", "-c", "6", "-d", "1.5", "-w", "0.3", "--rounds", "1",
      "--round-requests", "0", timeout: 200)
    assert outcome.status.success?, outcome.describe # errors over 1% are a finding, not Arena's failure
    m = outcome.measurements.first
    assert_includes m.dig("summary", "flags"), "pool-exhausted"
    assert_match(/6 threads per process share a pool of 2 connections/, m.dig("summary", "pool"))
    assert_match(/^puma\S*  pool-exhausted  connection pool ran dry: more threads than connections$/, outcome.stdout)
    assert_match(/puma:\S+ \/hold\?ms=200 steady keep-alive: pool-exhausted: \d+ log lines with ActiveRecord::ConnectionTimeoutError/,
      File.read(File.join(outcome.dir, "report.md")))
    # --env overrides the knob, and the command shown says what the server got.
    assert_equal ["env", "RAILS_MAX_THREADS=2", "WEB_CONCURRENCY=0"], outcome.results["servers"].first["command"].first(3)
    assert File.file?(File.join(outcome.dir, "database", "arena.sqlite3")), "the SQLite file is in the run directory"
  end

  # A fixed pool in database.yml under the config's threads: the pool check
  # reads the file as the server's Rails does (here 7.2's `pool`; 8.1's
  # max_connections is read the same way, test/unit/plan/rails_files_test.rb),
  # not RAILS_MAX_THREADS (6 here, from the config's threads), and says so
  # before the run too.
  def test_a_fixed_pool_under_the_threads_is_the_pool_checked
    Dir.mktmpdir("fixed-pool") do |dir|
      FileUtils.cp_r(File.join(APP, "."), dir)
      yml = File.join(dir, "config/database.yml")
      File.write(yml, File.read(yml).sub(/^  pool: .*$/, "  pool: 2"))
      outcome = arena("run", "--app", dir, "--only-app-bundle", "--database", "sqlite", "--servers", "puma:workers=0,threads=6",
        "--workload", "/hold?ms=200", "--env", "DB_CHECKOUT_TIMEOUT=0.3", "-c", "6", "-d", "1.5", "-w", "0.3", "--rounds", "1",
        "--round-requests", "0", timeout: 200)
      assert outcome.status.success?, outcome.describe
      assert_match(/^arena: note: puma:workers=0,threads=6\S*: 6 threads per process share database.yml's pool of 2/, outcome.stderr)
      m = outcome.measurements.first
      assert_includes m.dig("summary", "flags"), "pool-exhausted"
      assert_match(/6 threads per process share a pool of 2 connections/, m.dig("summary", "pool"))
    end
  end
end
