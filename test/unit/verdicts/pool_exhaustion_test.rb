# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "fileutils"
require "tmpdir"

# Rails' own knobs follow the server config; pool exhaustion is read from the
# server's log as its own kind; --database is checked before anything starts.
class RailsKnobsTest < Minitest::Test
  cover "Arena::Verdicts::PoolExhaustion*"

  RAILS_APP = File.expand_path("../../fixtures/apps/rails_db", __dir__)

  def app = Arena::Bundle::AppSource.user(RAILS_APP)

  def test_threads_and_processes_become_rails_max_threads_and_web_concurrency
    {"puma:workers=2,threads=7" => {"RAILS_MAX_THREADS" => "7", "WEB_CONCURRENCY" => "2"},
     "puma:workers=0,threads=4" => {"RAILS_MAX_THREADS" => "4", "WEB_CONCURRENCY" => "0"},
     "unicorn:workers=3" => {"RAILS_MAX_THREADS" => "1", "WEB_CONCURRENCY" => "3"},
     "thin:threaded=true" => {"RAILS_MAX_THREADS" => "20", "WEB_CONCURRENCY" => "1"},
     "falcon:count=2" => {"WEB_CONCURRENCY" => "2"}}.each do |spec, expected|
      adapter = Arena::Planner::ServerList.parse([spec], machine: Arena::Plan::Machine.new(cores: 2).freeze).first
      assert_equal expected, Arena::Servers::RailsKnobs.env(adapter, app), spec
      assert_equal expected, adapter.env(app: app).slice(*Arena::Servers::RailsKnobs::NAMES), spec
    end
  end

  def test_env_overrides_a_knob_and_the_opt_out_keeps_the_apps_values
    puma = Arena::Servers::Puma.new(settings: {"workers" => 2, "threads" => 8})
    assert_equal "3", puma.env(app: app.with_env("RAILS_MAX_THREADS" => "3"))["RAILS_MAX_THREADS"]
    refute puma.env(app: app.without_knobs).key?("RAILS_MAX_THREADS")
    plan = Arena::TestHelp.plan("--app", RAILS_APP, "--only-app-bundle", "--servers", "puma", "--no-rails-knobs")
    refute plan.app.rails_knobs?
  end

  # Falcon on a Rails app that keeps per-request state per thread is said
  # before the run (the fixture sets :fiber; a copy without it does not), and
  # a slow boot under Falcon says why.
  def test_falcon_on_a_rails_app_without_fiber_isolation_is_said
    falcon = Arena::Servers::Falcon.new(settings: {"count" => 2, "model" => "forked"})
    assert_nil falcon.app_note(app)
    Dir.mktmpdir do |dir|
      FileUtils.cp_r(RAILS_APP, dir)
      copy = File.join(dir, "rails_db")
      config = File.join(copy, "config/application.rb")
      File.write(config, File.read(config).sub(/^\s*config\.active_support\.isolation_level = :fiber\n/, ""))
      note = falcon.app_note(Arena::Bundle::AppSource.user(copy))
      assert_match(/\Afalcon: fibers share a DB connection; set config.active_support.isolation_level=:fiber\z/, note)
    end
    assert_nil falcon.app_note(Arena::Bundle::AppSource.builtin)
    assert_nil Arena::Servers::Puma.new.app_note(app)
    assert_match(/boots the app in each of its 2 instances at once .* 30 s health check/, falcon.slow_boot_hint(app))
    assert_nil falcon.slow_boot_hint(Arena::Bundle::AppSource.builtin)
  end

  def test_only_a_rails_app_gets_them
    assert app.rails?
    refute Arena::Bundle::AppSource.builtin.rails?
    assert_empty Arena::Servers::RailsKnobs.env(Arena::Servers::Puma.new, Arena::Bundle::AppSource.builtin)
  end

  def test_the_command_shown_carries_the_knobs_the_server_got
    argv = %w[bundle exec puma -t 5:5]
    assert_equal ["env", "RAILS_MAX_THREADS=5", "WEB_CONCURRENCY=2", *argv],
      Arena::Servers::RailsKnobs.shown(argv, {"RAILS_MAX_THREADS" => "5", "WEB_CONCURRENCY" => "2", "OTHER" => "x"})
    assert_equal argv, Arena::Servers::RailsKnobs.shown(argv, {"OTHER" => "x"})
  end

  LOG = <<~LOG
    I, [2026-11-23T14:20:01 #1]  INFO -- : [abc] Started GET "/hold?ms=200"
    F, [2026-11-23T14:20:02 #1] FATAL -- : [abc] ActiveRecord::ConnectionTimeoutError (could not obtain a connection from the pool within 0.300 seconds (waited 0.301 seconds); all pooled connections were in use):
    F, [2026-11-23T14:20:02 #1] FATAL -- : [def] ActiveRecord::ConnectionTimeoutError (could not obtain a connection from the pool within 0.300 seconds (waited 0.300 seconds); all pooled connections were in use):
  LOG

  def test_pool_exhaustion_is_its_own_kind_with_its_cause
    evidence = Arena::Verdicts::PoolExhaustion.evidence(LOG)
    assert_equal 2, evidence.timeouts
    assert_equal 0.3, evidence.wait_s
    verdict = Arena::Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: 2, threads: 6, pool: 2)
    assert_equal "pool-exhausted", verdict.word
    assert_match(/2 log lines with ActiveRecord::ConnectionTimeoutError \(2 failed requests\): 6 threads per process share a pool of 2 connections/, verdict.reason)
    unknown = Arena::Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: 1, threads: nil, pool: nil)
    assert_match(/more requests waited for a database connection than the pool holds/, unknown.reason)
    assert_match(/pool of 2 connections/, Arena::Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: 1, threads: 3, pool: 2).reason)
    assert_match(/more requests waited/, Arena::Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: 1, threads: 2, pool: 2).reason)
    assert_equal "ok", Arena::Verdicts::PoolExhaustion.verdict(evidence: Arena::Verdicts::PoolExhaustion.evidence("Started GET /\n"), errors: 5, threads: 6, pool: 2).word
  end

  # The whole reason, and the cause said only when both figures are known and
  # the threads outnumber the pool; a log without the wait (or none) reads as nothing.
  def test_pool_exhaustion_reason_and_evidence_whole
    evidence = Arena::Verdicts::PoolExhaustion.evidence(LOG)
    assert_equal "2 log lines with ActiveRecord::ConnectionTimeoutError (2 failed requests): 6 threads per process share a pool " \
      "of 2 connections; give the pool as many connections as threads (RAILS_MAX_THREADS, database.yml's pool) or run fewer threads",
      Arena::Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: 2, threads: 6, pool: 2).reason
    assert_match(/\): more requests waited/, Arena::Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: 1, threads: 6, pool: nil).reason)
    assert_match(/\): more requests waited/, Arena::Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: 1, threads: nil, pool: 2).reason)
    ok = Arena::Verdicts::PoolExhaustion.verdict(evidence: Arena::Verdicts::PoolExhaustion.evidence(nil), errors: 3, threads: 6, pool: 2)
    assert_equal ["ok", nil], [ok.word, ok.reason]
    assert ok.frozen?
    bare = Arena::Verdicts::PoolExhaustion.evidence("ActiveRecord::ConnectionTimeoutError\nStarted GET /\n")
    assert_equal({timeouts: 1, wait_s: nil}, bare.to_h)
    assert bare.frozen?
    assert_equal({timeouts: 0, wait_s: nil}, Arena::Verdicts::PoolExhaustion.evidence(nil).to_h)
    assert_equal({timeouts: 2, wait_s: 0.3}, evidence.to_h)
  end

  def test_pool_exhaustion_flags_the_summary
    load = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "requests" => {"completed" => 10}, "errors" => {"total" => 2}})
    verdict = Arena::Verdicts::PoolExhaustion.verdict(evidence: Arena::Verdicts::PoolExhaustion.evidence(LOG), errors: 2, threads: 6, pool: 2)
    summary = Arena::Results::Summary.of(load, pool: verdict)
    assert_includes summary.flags, "pool-exhausted"
    assert_equal verdict.reason, summary.pool
    refute_includes Arena::Results::Summary.of(load).flags, "pool-exhausted"
  end

  # Issue 33's audit: two timeout lines from a background job, no request
  # failed or timed out, the pool as large as the threads: the requests were
  # fine (the flag made tune drop the config).
  def test_timeout_lines_without_a_failed_request_are_not_pool_exhaustion
    background = Arena::Verdicts::PoolExhaustion.verdict(evidence: Arena::Verdicts::PoolExhaustion.evidence(LOG), errors: 0, threads: 5, pool: 5)
    assert_equal "ok", background.word
    assert_equal "2 log lines with ActiveRecord::ConnectionTimeoutError, but no request failed or timed out: something " \
      "besides the requests (a background job?) waited for the pool", background.reason
    assert_equal "ok", Arena::Verdicts::PoolExhaustion.verdict(evidence: Arena::Verdicts::PoolExhaustion.evidence(LOG), errors: nil, threads: 5, pool: 5).word
    load = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "requests" => {"completed" => 10}, "errors" => {"total" => 0}})
    refute_includes Arena::Results::Summary.of(load, pool: background).flags, "pool-exhausted"
    assert_equal "pool-exhausted", Arena::Verdicts::PoolExhaustion.verdict(evidence: Arena::Verdicts::PoolExhaustion.evidence(LOG), errors: 1, threads: 5, pool: 5).word
  end

  def test_database_is_checked_before_anything_starts
    error = assert_raises(Arena::UsageError) { Arena::TestHelp.plan("--servers", "puma", "--database", "postgres") }
    assert_match(/--database is for a Rails app/, error.message)
    error = assert_raises(Arena::UsageError) { Arena::Launch::Database.check!("mysql", app) }
    assert_equal "--database must be postgres or sqlite, not \"mysql\"", error.message
    plan = Arena::TestHelp.plan("--app", RAILS_APP, "--only-app-bundle", "--servers", "puma", "--database", "sqlite")
    assert_equal({"kind" => "sqlite"}, plan.to_h[:database])
  end

  def test_database_figures_round_trip
    figures = Arena::Results::DatabaseFigures.new(kind: "postgres", connections: 4, queries: 300, requests: 290,
      queries_per_request: 1.03).freeze
    assert_equal figures, Arena::Results::DatabaseFigures.from_h(JSON.parse(JSON.generate(figures.to_record)))
  end
end
