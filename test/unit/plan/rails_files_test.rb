# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

module Arena
  # Rails 8.1's generated files (test/fixtures/rails81: `rails new` with
  # SQLite and its defaults), read as they would be in production, never run:
  # database.yml's max_connections (pool before 8.1), Solid Queue inside Puma
  # (puma.rb's plugin, gated by deploy.yml's SOLID_QUEUE_IN_PUMA), Thruster
  # in the Dockerfile's command, and puma.rb's max_io_threads.
  class RailsFilesTest < Minitest::Test
    cover "Arena::Plan::RailsFiles*"

    RAILS81 = File.expand_path("../../fixtures/rails81", __dir__)

    def setup
      @dir = Dir.mktmpdir("rails-files")
    end

    def teardown
      FileUtils.rm_rf(@dir)
    end

    def files(dir = RAILS81) = Plan::RailsFiles.new(dir: dir)

    def write(name, text)
      FileUtils.mkdir_p(File.dirname(File.join(@dir, name)))
      File.write(File.join(@dir, name), text)
    end

    def test_rails_8_1_max_connections_follows_rails_max_threads
      pool = files.pool(env: {"RAILS_MAX_THREADS" => "8"})
      assert_equal ["max_connections", 8], [pool.key, pool.size]
      assert_equal 5, files.pool(env: {}).size
      assert_equal "database.yml's max_connections", pool.words
    end

    def test_the_pool_of_rails_before_8_1_is_read_too
      write("config/database.yml", <<~YAML)
        default: &default
          adapter: sqlite3
          pool: <%= ENV.fetch("RAILS_MAX_THREADS") { 5 } %>
        production:
          <<: *default
          database: storage/production.sqlite3
      YAML
      pool = files(@dir).pool(env: {"RAILS_MAX_THREADS" => "3"})
      assert_equal ["pool", 3], [pool.key, pool.size]
    end

    # Rails 8.1 reads max_connections, else pool; before 8.1 only pool, else its default of 5.
    def test_the_key_the_apps_rails_reads_and_a_fixed_one_exceeded
      write("config/database.yml", "production:\n  adapter: sqlite3\n  max_connections: 4\n")
      pool = files(@dir).pool(env: {"RAILS_MAX_THREADS" => "8"}, rails: "8.1.1")
      assert_equal ["max_connections", 4], [pool.key, pool.size]
      assert_equal [nil, 5, "Active Record's default pool"], files(@dir).pool(env: {}, rails: "7.2.4").then { |p| [p.key, p.size, p.words] }
      write("config/database.yml", "production:\n  adapter: sqlite3\n  pool: 3\n")
      assert_equal ["pool", 3], files(@dir).pool(env: {}, rails: "8.1.1").then { |p| [p.key, p.size] }
      assert_equal ["pool", 3], files(@dir).pool(env: {}, rails: "7.2.4").then { |p| [p.key, p.size] }
      write("config/database.yml", "production:\n  adapter: sqlite3\n  timeout: 5000\n")
      assert_equal [nil, 5], files(@dir).pool(env: {}).then { |p| [p.key, p.size] }
      assert_equal "8 threads per process share database.yml's max_connections of 4: the pool may run dry", pool.exceeded(8)
      assert_nil pool.exceeded(4)
      assert_nil pool.exceeded(nil)
    end

    def test_no_database_yml_or_an_unreadable_one_is_no_pool
      assert_nil files(@dir).pool(env: {})
      write("config/database.yml", "development:\n  adapter: sqlite3\n")
      assert_nil files(@dir).pool(env: {})
      write("config/database.yml", "production:\n  pool: <%= Setting.pool %>\n")
      assert_nil files(@dir).pool(env: {}).size
      write("config/database.yml", ": not yaml [")
      assert_nil files(@dir).pool(env: {})
    end

    def test_solid_queue_inside_puma_as_production_runs_it
      jobs = files.jobs
      assert_equal ["solid_queue", "SOLID_QUEUE_IN_PUMA", "true"], [jobs.plugin, jobs.gate, jobs.production]
      assert jobs.production?
      assert_equal({"SOLID_QUEUE_IN_PUMA" => "true"}, files.deploy_env.slice("SOLID_QUEUE_IN_PUMA"))
    end

    def test_solid_queue_without_deploy_yml_setting_its_gate_is_not_run_in_production
      write("config/puma.rb", "threads 3, 3\nplugin :solid_queue if ENV[\"SOLID_QUEUE_IN_PUMA\"]\n")
      jobs = files(@dir).jobs
      assert_equal "SOLID_QUEUE_IN_PUMA", jobs.gate
      refute jobs.production?
      refute jobs.bundled
      write("Gemfile.lock", "GEM\n  specs:\n    solid_queue (1.2.4)\n")
      assert files(@dir).jobs.bundled
      write("config/puma.rb", "threads 3, 3\nplugin :solid_queue\n")
      assert files(@dir).jobs.production?
      write("config/puma.rb", "threads 3, 3\nplugin :tmp_restart\n")
      assert_nil files(@dir).jobs
    end

    def test_thruster_in_the_dockerfiles_command
      assert_equal "./bin/thrust ./bin/rails server", files.thruster
      write("Dockerfile", "FROM ruby\nCMD [\"./bin/rails\", \"server\"]\n")
      assert_nil files(@dir).thruster
      write("Dockerfile", "FROM ruby\nCMD bundle exec thrust bin/rails server\n")
      assert_equal "bundle exec thrust bin/rails server", files(@dir).thruster
    end

    def test_max_io_threads_on_puma_8_0_2_is_a_warning_naming_the_issue
      assert_nil files.max_io_threads(env: {})
      write("config/puma.rb", "threads 3, 3\nmax_io_threads ENV.fetch(\"IO_THREADS\", 4)\n")
      assert_equal 4, files(@dir).max_io_threads(env: {})
      line = Plan::RailsFiles.io_threads_warning("8.0.2", 4)
      assert_equal "warning: Puma 8.0.2 with max_io_threads 4 (config/puma.rb) can leave requests stuck " \
        "(puma/puma#3958, fixed on Puma's main, not released)", line
      assert Plan::RailsFiles.io_threads_warning("8.0.0", 1)
      assert_nil Plan::RailsFiles.io_threads_warning("7.2.0", 4) # no max_io_threads before 8.0
      assert_nil Plan::RailsFiles.io_threads_warning("8.0.3", 4)
      assert_nil Plan::RailsFiles.io_threads_warning("8.0.2", 0)
      assert_nil Plan::RailsFiles.io_threads_warning("8.0.2", nil)
      assert_nil Plan::RailsFiles.io_threads_warning(nil, 4)
    end
  end
end
