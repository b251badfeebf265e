# frozen_string_literal: true

module Arena
  module Tune
    # The lines under the answer (Answer#notes) from what the app's own files
    # say of how it runs in production (Plan::RailsFiles), set against how the
    # rounds ran: Solid Queue inside Puma (whether they ran it), Thruster in
    # the Dockerfile (--front thruster, or measured through it), and Puma's
    # max_io_threads on a release that can leave requests stuck. `lines` is
    # the rule (values in, strings out); `facts` reads the files.
    module Notes
      # jobs: Plan::RailsFiles::Jobs run in production (nil: none); jobs_on:
      # whether the rounds ran them; thruster: the Dockerfile's command when it
      # starts Thruster; front: the rounds' front (--front), or nil;
      # io_warning: RailsFiles.io_threads_warning's line, or nil.
      Facts = Struct.new(:jobs, :jobs_on, :thruster, :front, :io_warning, keyword_init: true)

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # server: the answer's server key.
      def lines(server:, facts:)
        [jobs_line(server, facts), front_line(facts), facts.io_warning].compact
      end

      # The facts of an app (Bundle::AppSource) as the rounds ran it; puma_version: the Puma the app bundles, or nil.
      def facts(app:, front:, puma_version:)
        return Facts.new(jobs_on: false) if app.builtin || app.dir.nil?
        files = Plan::RailsFiles.new(dir: app.dir)
        jobs = files.jobs
        Facts.new(jobs: (jobs if jobs&.production?), jobs_on: !app.jobs.nil?, thruster: files.thruster, front: front,
          io_warning: Plan::RailsFiles.io_threads_warning(puma_version, files.max_io_threads(env: app.env || {})))
      end

      # The answer server's standing (Standing): its gem's facts (Bundle::GemFacts) and the crashes this run recorded of it.
      def standing(server_class, app:, servers:, gem_facts: Bundle::GemFacts.new)
        installation = server_class.install(app)
        return nil unless installation.found && installation.version
        facts = gem_facts.call(name: server_class.gem_name, version: installation.version, path: installation.path)
        Standing.line(server: server_class.key, facts: facts, crashes: Standing.crashes(servers, server_class.key), ruby: RUBY_VERSION)
      end

      private

      def jobs_line(server, facts)
        return nil unless facts.jobs
        return "jobs: Solid Queue left out (--no-jobs-in-server); production runs it inside Puma" unless facts.jobs_on
        return "jobs: Solid Queue ran inside Puma in these rounds, as in production (--no-jobs-in-server leaves it out)" if server == "puma"
        "jobs: Solid Queue ran inside Puma's configs only, #{server} ran no jobs (--no-jobs-in-server: none ran any)"
      end

      def front_line(facts)
        return nil unless facts.thruster
        return "front: measured through Thruster, as your Dockerfile runs it" if facts.front == "thruster"
        return nil if facts.front
        "front: your Dockerfile starts Thruster (#{facts.thruster}): --front thruster measures through it"
      end
    end
  end
end
