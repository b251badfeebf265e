# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "fileutils"
require "tmpdir"

# --database checks the app's bundle for its adapter before anything starts,
# and a preparation that fails says the first error line of its log, not a
# Process::Status (issue 31).
class DatabaseCheckTest < Minitest::Test
  FIXTURES = File.expand_path("../fixtures/apps", __dir__)

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
        Arena::Launch::Database.run([RbConfig.ruby, "-e", script], log_path: File.join(dir, "prepare.log"), what: "the app's db:prepare db:seed")
      end
      assert_equal "the app's db:prepare db:seed failed (exit 3): ActiveRecord::NoDatabaseError: We could not find your database: x", error.message
    end
  end

  def test_the_first_error_line_is_the_exception_else_the_first_line_saying_error_else_the_last
    assert_equal "PG::ConnectionBad: no socket", Arena::Launch::Database.first_error_line(["rake aborted!", "PG::ConnectionBad: no socket", "x.rb:1"])
    assert_equal "FATAL:  role \"x\" does not exist", Arena::Launch::Database.first_error_line(["starting", "FATAL:  role \"x\" does not exist", "bye"])
    assert_equal "rake aborted!", Arena::Launch::Database.first_error_line(["ok", "rake aborted!", "Tasks: TOP => db:prepare"])
    assert_equal "last words", Arena::Launch::Database.first_error_line(["first", "last words", ""])
    assert_nil Arena::Launch::Database.first_error_line([])
  end
end
