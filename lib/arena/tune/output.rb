# frozen_string_literal: true

require "json"
require "fileutils"
require_relative "../plan/runtime"
require_relative "../results/tune_document"
require_relative "../support/format"
require_relative "answer_words"
require_relative "capacity"
require_relative "search"
require_relative "space"

module Arena
  module Tune
    SCHEMA = Results::TuneDocument::SCHEMA

    # What a tune run leaves behind: DIR/tune.json (schema arena-tune/1), a
    # config file per winner in DIR/tune/SERVER/, and the lines the terminal
    # shows. Written after each server, so an interrupted run keeps the
    # servers already searched and the best so far of the current one.
    class Output
      # unbounded: the winner measured again without its envelope (Candidate), or nil.
      Result = Struct.new(:adapter, :outcome, :note, :slo_ms, :unbounded, keyword_init: true)

      # app: the app tuned; a Rails app's winner starts with the Rails knobs it was measured with.
      def initialize(dir:, constraints:, machine:, workload:, rackup:, app: nil)
        @app = app
        @dir = dir
        @constraints = constraints
        @machine = machine
        @workload = workload
        @rackup = rackup
        @results = []
      end

      # The answer (Tune::Answer) once the head to head decided it.
      attr_accessor :answer

      # How a later `arena tune --resume` plans this tune again (Results::TuneResume::Recipe).
      attr_accessor :resume

      def add(adapter:, outcome: nil, note: nil, slo_ms: nil, unbounded: nil)
        @results << Result.new(adapter: adapter, outcome: outcome, note: note, slo_ms: slo_ms, unbounded: unbounded)
      end

      def write(interrupted: false)
        servers = @results.to_h { |r| [r.adapter.key, server_record(r)] }
        doc = Results::TuneDocument.document(workload: @workload, constraints: @constraints, interrupted: interrupted, servers: servers,
          answer: @answer&.to_record, resume: @resume)
        path = File.join(@dir, "tune.json")
        File.write("#{path}.tmp", JSON.pretty_generate(doc))
        File.rename("#{path}.tmp", path)
        path
      end

      # A block per server, then the answer: the last thing printed (--verbose).
      def lines
        detail_lines + (@answer ? ["", *@answer.lines] : [])
      end

      # The terminal's default: a line per server, then the answer block.
      def brief_lines
        @results.map { |r| AnswerWords.fit(server_line(r)) } + (@answer ? ["", *@answer.lines(brief: true)] : [])
      end

      # Each server's search in full: its model, duels, best, runner-up and why.
      def detail_lines = @results.flat_map { |r| server_lines(r) }

      # Each winner's config file, written: {server key => {path:, command:}}.
      def files
        @results.select { |r| r.outcome&.best }.to_h { |r| [r.adapter.key, config_file(r.adapter, r.outcome.best)] }.compact
      end

      # The servers that have no winner, and why: {key => why}: searched
      # without one, or never searched (not installed, said in its note).
      def unanswered
        @results.reject { |r| r.outcome&.best }.to_h do |r|
          next [r.adapter.key, r.note] unless r.outcome
          unlooked = Output.not_looked(r.outcome)
          next [r.adapter.key, unlooked] if unlooked
          failure = r.outcome.candidates.find { |c| !c.qualifies? }
          [r.adapter.key, failure ? "no config qualified (#{failure.status}: #{failure.why})" : "nothing measured"]
        end
      end

      # "not looked at (no time left)" for a server no look reached (SearchPhase), else nil.
      def self.not_looked(outcome) = ("#{Search::NOT_LOOKED} (no time left)" if outcome.candidates.empty? && outcome.stopped == Search::NOT_LOOKED)

      # The p99 objective each server's search held.
      def slos = @results.to_h { |r| [r.adapter.key, r.slo_ms] }

      private

      def server_record(r)
        best = r.outcome&.best
        capacity = best && Capacity.new(server: r.adapter.class, candidate: best, cores: @machine.server_cores)
        Results::TuneDocument.server(outcome: r.outcome, note: r.note, slo_ms: r.slo_ms, capacity: capacity,
          file: best && config_file(r.adapter, best), envelope: envelope_record(r))
      end

      # The winner's settings are the adapter's with the tuned ones in place.
      def config_file(adapter, best)
        file = winner_file(adapter, best)
        return nil unless file
        dir = File.join(@dir, "tune", adapter.key)
        FileUtils.mkdir_p(dir)
        path = File.join(dir, file.name)
        File.write(path, file.text)
        file.files.each { |name, text| File.write(File.join(dir, name), text) }
        {path: path, command: file.command}
      end

      # The config file of a winner; its Rails knobs (RAILS_MAX_THREADS,
      # WEB_CONCURRENCY, as the candidate got them) and its runtime (YJIT,
      # jemalloc) are the environment the command starts with.
      def winner_file(adapter, best)
        settings = adapter.settings.merge(Space.adapter_settings(best.settings))
        file = adapter.class.config_file(settings, rackup: @rackup)
        return nil unless file
        knobs = @app ? adapter.rebuilt(settings: settings).env(app: @app).slice(*Servers::RailsKnobs::NAMES, *jobs&.gate).compact : {}
        runtime = adapter.runtime.merge(Plan::Runtime.parse(Space.runtime_tokens(best.settings))).env.compact
        env = knobs.merge(runtime).map { |k, v| "#{k}=#{v}" }
        line = adapter.jobs_line(@app) if @app
        file = file.with(text: "#{file.text}#{line}\n") if line
        env.empty? ? file : file.with(command: ["env", *env, *file.command])
      end

      # The job runner the app's server ran inside it (Plan::RailsFiles::Jobs), or nil.
      def jobs = (@app.jobs if @app.respond_to?(:jobs))

      # One server in one line: its best config and figures, or why it has none.
      def server_line(r)
        key = r.adapter.key
        return "#{key}: #{r.note}" unless r.outcome
        o = r.outcome
        best = o.best
        unlooked = Output.not_looked(o)
        return "#{key}: #{unlooked}" if unlooked
        looked = "#{o.candidates.size} #{(o.candidates.size == 1) ? "config" : "configs"}"
        return "#{key}: no config qualified of #{looked} (#{o.candidates.find { |c| !c.qualifies? }&.why || o.stopped})" unless best
        w = AnswerWords
        "#{key}: #{setting_words(best).then { |t| t.empty? ? "its only config" : t }}, best of #{looked}: sustains " \
          "#{w.sig3(best.sustained_rps)} req/s at p99 #{w.sig3(best.p99_ms)} ms, PSS #{w.sig3(best.pss_mib)} MiB"
      end

      def server_lines(r)
        key = r.adapter.key
        return ["#{key}: #{r.note}"] unless r.outcome
        o = r.outcome
        f = Support::Format
        rounds = (o.duels || []).sum { |d| [d.a_rates.size, d.b_rates.size].min }
        head = "#{key}: looked at #{o.candidates.size} configs, #{(o.duels || []).size} duels of #{rounds} rounds (#{o.stopped}); " \
          "noise #{(100 * o.noise).round(1)}%"
        if o.model
          head += "\n  model: #{o.model[:slots]} requests in service keep #{@machine.server_cores} " \
            "#{(@machine.server_cores == 1) ? "core" : "cores"} busy (Little's law on the start's CPU and service time): #{setting_words(o.model)}"
        end
        best = o.best
        return [head, "  no config sustained a rate within the SLO and the memory budget"] unless best
        out = [head, "  best: #{setting_words(best)}: sustains #{f.rps(best.sustained_rps)} req/s, p99 #{best.p99_ms} ms, " \
          "PSS #{best.pss_mib} MiB (closed max #{f.rps(best.closed_rps)} req/s)"]
        if o.runner_up
          margin = "#{(100 * o.margin).round(1)}%#{" (within the noise)" if o.within_noise?}"
          out << "  runner-up: #{setting_words(o.runner_up)}: #{f.rps(o.runner_up.sustained_rps)} req/s, PSS #{o.runner_up.pss_mib} MiB; margin #{margin}"
          out << "  significance: #{o.difference.reason}" if o.difference
        end
        out << envelope_line(r) if r.adapter.envelope.bounded?
        out << "  why: #{Capacity.new(server: r.adapter.class, candidate: best, cores: @machine.server_cores).explanation}"
        file = File.join(@dir, "tune", key)
        written = Dir[File.join(file, "*")].first
        out << "  config: #{written}" if written
        command = winner_file(r.adapter, best)&.command
        out << "  start: #{command.join(" ")}" if command
        out
      end

      # The envelope the search ran in, the winner's throttling and cgroup
      # peak, and the same config unbounded: what the envelope costs.
      def envelope_record(r)
        envelope = r.adapter.envelope
        return nil unless envelope.bounded?
        best = r.outcome&.best
        Results::TuneDocument.envelope(limits: envelope.to_s, best: best, unbounded: r.unbounded, cost_pct: cost_pct(best, r.unbounded))
      end

      def cost_pct(best, unbounded)
        return nil unless best && unbounded&.qualifies? && unbounded.sustained_rps.positive?
        (100.0 * (unbounded.sustained_rps - best.sustained_rps) / unbounded.sustained_rps).round(1)
      end

      def envelope_line(r)
        envelope = r.adapter.envelope
        best = r.outcome.best
        line = "  envelope #{envelope}: throttled in #{best.throttled_pct || 0}% of CFS periods at worst, cgroup peak " \
          "#{best.cgroup_peak_mib || "?"} MiB#{" of #{envelope.memory_text}" if envelope.memory_bytes}"
        u = r.unbounded
        return "#{line}; not measured without it" unless u
        return "#{line}; without it the same config #{u.status}: #{u.why}" unless u.qualifies?
        "#{line}; without it the same config sustains #{Support::Format.rps(u.sustained_rps)} req/s: #{cost_words(cost_pct(best, u), r.outcome.noise)}"
      end

      # One run a side: a difference inside the search's noise is not a cost,
      # and a faster run inside the limit is not the limit's gain (the server
      # is pinned to the same cores either way).
      def cost_words(pct, noise)
        noise_pct = (100 * noise.to_f).round(1)
        return "the envelope costs #{pct}%" if pct > noise_pct
        return "the envelope's cost is within the noise (#{pct}%, noise #{noise_pct}%)" if pct >= -noise_pct
        "the run without the envelope was #{-pct}% slower, more than the noise (#{noise_pct}%): one run a side cannot tell the envelope from the machine's drift"
      end

      def setting_words(c) = Support::Format.pairs(c.is_a?(Hash) ? c[:settings] : c.settings)
    end
  end
end
