# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"
require "arena/plan/config_reader"
require "arena/plan/baseline"

module Arena
  # What the app runs today, read from its files without running them: the
  # generated config/puma.rb of Rails 7.2 and 7.1 (RAILS_MAX_THREADS,
  # WEB_CONCURRENCY as they read them), a Procfile's flags, Unicorn's
  # worker_processes, a Passengerfile.json, and the Rails default.
  class BaselineTest < Minitest::Test
    cover "Arena::Plan::Baseline*"
    cover "Arena::Plan::ConfigReader*"

    RAILS_72 = <<~RUBY
      threads_count = ENV.fetch("RAILS_MAX_THREADS", 3)
      threads threads_count, threads_count
      port ENV.fetch("PORT", 3000)
      plugin :tmp_restart
      pidfile ENV["PIDFILE"] if ENV["PIDFILE"]
    RUBY

    RAILS_71 = <<~RUBY
      max_threads_count = ENV.fetch("RAILS_MAX_THREADS") { 5 }
      min_threads_count = ENV.fetch("RAILS_MIN_THREADS") { max_threads_count }
      threads min_threads_count, max_threads_count
      if ENV["RAILS_ENV"] == "production"
        require "concurrent-ruby"
        worker_count = Integer(ENV.fetch("WEB_CONCURRENCY") { Concurrent.physical_processor_count })
        workers worker_count if worker_count > 1
      end
    RUBY

    def setup
      @dir = Dir.mktmpdir("baseline")
    end

    def teardown
      FileUtils.rm_rf(@dir)
    end

    def write(name, text)
      FileUtils.mkdir_p(File.dirname(File.join(@dir, name)))
      File.write(File.join(@dir, name), text)
    end

    def read(env: {}, cores: 2) = Plan::Baseline.new(dir: @dir, env: env, cores: cores).call

    def test_the_rails_default_without_any_server_config
      found = read
      assert_equal ["puma", {"threads" => 3, "workers" => 0}, "the Rails default"], [found.server, found.settings, found.source]
      assert_equal "the Rails default (puma, 3 threads, 1 process)", found.words
    end

    def test_rails_7_2_puma_rb_reads_rails_max_threads_as_it_would
      write("config/puma.rb", RAILS_72)
      assert_equal "config/puma.rb (puma, 3 threads, 1 process)", read.words
      assert_equal({"threads" => 8, "workers" => 0}, read(env: {"RAILS_MAX_THREADS" => "8"}).settings)
      # Puma itself reads WEB_CONCURRENCY when the file names no workers.
      assert_equal({"threads" => 3, "workers" => 4}, read(env: {"WEB_CONCURRENCY" => "4"}).settings)
    end

    def test_rails_7_1_puma_rb_its_workers_from_the_cores_in_production
      write("config/puma.rb", RAILS_71)
      assert_equal({"threads" => 5, "workers" => 0}, read(cores: 1).settings, "one core: `workers n if n > 1` is not called")
      assert_equal({"threads" => 5, "workers" => 4}, read(cores: 4).settings)
      assert_equal({"threads" => 2, "workers" => 3}, read(env: {"WEB_CONCURRENCY" => "3", "RAILS_MAX_THREADS" => "2"}).settings)
      assert_equal "config/puma.rb (puma, 5 threads, 4 processes)", read(cores: 4).words
    end

    def test_a_config_file_is_parsed_never_run
      marker = File.join(@dir, "ran")
      write("config/puma.rb", "File.write(#{marker.inspect}, 'x')\nsystem('touch', #{marker.inspect})\nworkers 2\nthreads 1, 6\n")
      assert_equal({"threads" => 6, "workers" => 2}, read.settings)
      refute File.exist?(marker), "the app's config ran in Arena's process"
    end

    def test_what_cannot_be_read_keeps_pumas_default_and_says_so
      write("config/puma.rb", "threads some_method, other\n")
      found = read
      assert_equal 5, found.settings["threads"]
      assert_match(/could not be read without running it/, found.notes.first)
    end

    def test_a_procfile_names_the_server_and_its_flags
      write("Procfile", "release: bin/rails db:migrate\nweb: bundle exec puma -t 2:4 -w 3 -C config/puma.rb\n")
      write("config/puma.rb", RAILS_72)
      found = read
      assert_equal ["puma", {"threads" => 4, "workers" => 3}], [found.server, found.settings]
      assert_match(/\AProcfile/, found.source)
      write("Procfile", "web: bundle exec unicorn -p $PORT -c ./config/unicorn.rb\n")
      write("config/unicorn.rb", "worker_processes Integer(ENV[\"WEB_CONCURRENCY\"] || 3)\ntimeout 15\n")
      assert_equal ["unicorn", {"workers" => 3}], read.then { |f| [f.server, f.settings] }
    end

    def test_unicorn_and_passenger_files
      write("config/unicorn.rb", "worker_processes 4\n")
      assert_equal "config/unicorn.rb (unicorn, 4 processes)", read.words
      FileUtils.rm(File.join(@dir, "config/unicorn.rb"))
      write("Passengerfile.json", '{"max_pool_size": 2}')
      assert_equal ["passenger", {"pool" => 2}], read.then { |f| [f.server, f.settings] }
    end

    # Rails 8.1's generated puma.rb names no workers: Puma reads
    # WEB_CONCURRENCY, whose `auto` is a worker per core the server gets;
    # config/deploy.yml's clear env is production's, under Arena's own env.
    def test_rails_8_1_web_concurrency_auto_is_the_servers_cores
      FileUtils.cp_r(Dir[File.expand_path("../../fixtures/rails81/*", __dir__)], @dir)
      assert_equal "config/puma.rb (puma, 3 threads, 1 process)", read.words
      assert_equal({"threads" => 3, "workers" => 2}, read(env: {"WEB_CONCURRENCY" => "auto"}, cores: 2).settings)
      write("config/deploy.yml", "env:\n  clear:\n    WEB_CONCURRENCY: auto\n    RAILS_MAX_THREADS: 4\n")
      assert_equal({"threads" => 4, "workers" => 3}, read(cores: 3).settings)
      assert_equal({"threads" => 2, "workers" => 3}, read(env: {"RAILS_MAX_THREADS" => "2"}, cores: 3).settings)
      write("config/puma.rb", "workers ENV.fetch(\"WEB_CONCURRENCY\", 1)\n")
      assert_equal 3, read(cores: 3).settings["workers"]
    end

    def test_the_spec_a_server_list_takes
      write("config/puma.rb", RAILS_72)
      assert_equal "puma:threads=3,workers=0", read.spec
    end
  end
end
