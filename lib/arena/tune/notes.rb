# frozen_string_literal: true

require_relative "../plan/rails_files"
require_relative "standing"

module Arena
  module Tune
    # The lines under the answer (Answer#notes) from what the app's own files
    # say of how it runs in production (Plan::RailsFiles), set against how the
    # rounds ran: its jobs inside the server (whether they ran them), Thruster
    # in the Dockerfile (--front thruster, or measured through it), and the
    # servers' own warnings about the app's config (Servers::Base#answer_note).
    # `lines` is the rule (values in, strings out); `facts` reads the files.
    module Notes
      # jobs: Plan::RailsFiles::Jobs run in production (nil: none); jobs_on:
      # whether the rounds ran them; thruster: the Dockerfile's command when it
      # starts Thruster; front: the rounds' front (--front), or nil;
      # warnings: the servers' answer notes.
      Facts = Struct.new(:jobs, :jobs_on, :thruster, :front, :warnings, keyword_init: true)

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # server: the answer's server key.
      def lines(server:, facts:)
        [facts.jobs&.answer_words(on: facts.jobs_on, server: server), front_line(facts), *facts.warnings].compact
      end

      # The facts of an app (Bundle::AppSource) as the rounds ran it with `servers` (adapters).
      def facts(app:, front:, servers:)
        warnings = servers.filter_map { |s| s.answer_note(app) }.uniq
        return Facts.new(jobs_on: false, warnings: warnings) if app.builtin || app.dir.nil?
        files = Plan::RailsFiles.new(dir: app.dir)
        jobs = files.jobs
        Facts.new(jobs: (jobs if jobs&.production?), jobs_on: !app.jobs.nil?, thruster: files.thruster, front: front, warnings: warnings)
      end

      # The answer server's standing (Standing): its gem's facts (Bundle::GemFacts) and the crashes this run recorded of it.
      def standing(server_class, app:, servers:, gem_facts: Bundle::GemFacts.new)
        installation = server_class.install(app)
        return nil unless installation.found && installation.version
        facts = gem_facts.call(name: server_class.gem_name, version: installation.version, path: installation.path)
        Standing.line(server: server_class.key, facts: facts, crashes: Standing.crashes(servers, server_class.key), ruby: RUBY_VERSION)
      end

      private

      def front_line(facts)
        return nil unless facts.thruster
        return "front: measured through Thruster, as your Dockerfile runs it" if facts.front == "thruster"
        return nil if facts.front
        "front: your Dockerfile starts Thruster in front: --front thruster measures through it"
      end
    end
  end
end
