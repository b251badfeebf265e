# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

module Arena
  # The lines under the answer from the app's own files (Rails 8.1's, in
  # test/fixtures/rails81): Solid Queue inside Puma (whether the rounds ran
  # it), Thruster in the Dockerfile (--front thruster suggested, or said to
  # have been measured through), Puma's max_io_threads on a release that
  # can leave requests stuck; and they stand right under the answer's head.
  class TuneNotesTest < Minitest::Test
    cover "Arena::Tune::Notes*"

    RAILS81 = File.expand_path("../../fixtures/rails81", __dir__)
    # The fixture has no Gemfile.lock: as bundled, the app `rails new` made has solid_queue in it.
    JOBS = Plan::RailsFiles.new(dir: RAILS81).jobs.then { |j| j.class.new(**j.to_h, bundled: true).freeze }

    def facts(**kw) = Tune::Notes::Facts.new(jobs: nil, jobs_on: false, thruster: nil, front: nil, warnings: [], **kw)

    def test_thruster_in_the_dockerfile_suggests_the_front_or_says_it_measured_through_it
      thruster = Plan::RailsFiles.new(dir: RAILS81).thruster
      assert_equal ["front: your Dockerfile starts Thruster in front: --front thruster measures through it"],
        Tune::Notes.lines(server: "puma", facts: facts(thruster: thruster))
      assert_equal ["front: measured through Thruster, as your Dockerfile runs it"],
        Tune::Notes.lines(server: "puma", facts: facts(thruster: thruster, front: "thruster"))
      assert_empty Tune::Notes.lines(server: "puma", facts: facts(front: "thruster"))
      assert_empty Tune::Notes.lines(server: "puma", facts: facts(thruster: thruster, front: "nginx")).grep(/thruster/i)
    end

    def test_whether_the_rounds_ran_solid_queue_inside_puma
      assert_equal ["jobs: Solid Queue ran inside Puma in these rounds, as in production (--no-jobs-in-server leaves it out)"],
        Tune::Notes.lines(server: "puma", facts: facts(jobs: JOBS, jobs_on: true))
      assert_equal ["jobs: Solid Queue ran inside Puma's configs only, iodine ran no jobs (--no-jobs-in-server: none ran any)"],
        Tune::Notes.lines(server: "iodine", facts: facts(jobs: JOBS, jobs_on: true))
      assert_equal ["jobs: Solid Queue left out (--no-jobs-in-server); production runs it inside Puma"],
        Tune::Notes.lines(server: "iodine", facts: facts(jobs: JOBS, jobs_on: false))
      unbundled = JOBS.class.new(**JOBS.to_h, bundled: false)
      assert_equal ["jobs: none ran: config/puma.rb loads Puma's solid_queue plugin, but solid_queue is not in the app's bundle"],
        Tune::Notes.lines(server: "puma", facts: facts(jobs: unbundled, jobs_on: false))
    end

    def test_the_io_threads_warning_and_the_order
      warning = Plan::RailsFiles.io_threads_warning("8.0.2", 4)
      lines = Tune::Notes.lines(server: "puma", facts: facts(jobs: JOBS, jobs_on: true, thruster: "thrust x", warnings: [warning]))
      lines.zip([/\Ajobs: /, /\Afront: /, /\Awarning: Puma 8\.0\.2 with max_io_threads 4 .*puma\/puma#3958/]).each { |l, re| assert_match re, l }
      assert_equal 3, lines.size
    end

    # Read from the app's files and the run: the fixture's jobs and Thruster;
    # Puma's warning from the app's puma.rb and the Puma it bundles (8.0.2).
    def test_gathered_from_the_apps_files
      app = Struct.new(:builtin, :dir, :jobs, :env).new(false, RAILS81, JOBS, {})
      facts = Tune::Notes.facts(app: app, front: nil, servers: [])
      assert_equal [Plan::RailsFiles.new(dir: RAILS81).jobs, true, "./bin/thrust ./bin/rails server", nil, []], facts.to_a
      Dir.mktmpdir do |dir|
        FileUtils.cp_r(File.join(File.expand_path("../../fixtures/apps/rails", __dir__), "."), dir)
        File.write(File.join(dir, "config/puma.rb"), "threads 3, 3\nmax_io_threads 2\n")
        rails = Bundle::AppSource.user(dir)
        servers = [Servers::Puma.new, Servers.fetch("iodine").new]
        gathered = Tune::Notes.facts(app: rails, front: nil, servers: servers)
        assert_equal ["warning: Puma 8.0.2 with max_io_threads 2 (config/puma.rb) can leave requests stuck (puma/puma#3958, " \
          "fixed on Puma's main, not released)"], gathered.warnings
        assert_nil gathered.jobs
        File.write(File.join(dir, "config/puma.rb"), "threads 3, 3\nmax_io_threads 0\n")
        assert_empty Tune::Notes.facts(app: rails, front: nil, servers: servers).warnings
        assert_empty Tune::Notes.facts(app: Bundle::AppSource.builtin, front: nil, servers: servers).warnings
      end
    end
  end
end
