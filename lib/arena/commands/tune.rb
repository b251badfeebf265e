# frozen_string_literal: true

require_relative "base"
require_relative "../tune"

require "fileutils"

module Arena
  module Commands
    # `arena tune`: for each server, search its declared settings for the
    # config that sustains the highest open-model rate within the SLO, the
    # memory budget and 1% errors (lib/arena/tune/search.rb). Takes `arena
    # run`'s app, workload, server and load options; every candidate is a
    # normal measurement in DIR/results.json.
    class Tune < Base
      BANNER = "usage: arena tune [--servers LIST] [--workload NAME] [--memory SIZE] [--slo MS] [--max-time SEC] [run's options]"
      # Shorter than `arena run`'s: a tune measures many configs.
      DEFAULTS = {duration: 2.0, warmup: 0.5, max_time: 600.0, settle_timeout: 10.0}.freeze

      def call
        builder = Plan::Builder.new(say: ->(line) { @err.puts line })
        memory = nil
        tune_runtime = false
        OptionParser.new do |parser|
          parser.banner = BANNER
          builder.define(parser)
          parser.on("--tune-runtime", "also search YJIT and jemalloc (off and on) for every MRI server") { tune_runtime = true }
          parser.on("--memory SIZE", "the most PSS a config may use under load: 512MiB, 2GiB or bytes (default 75% of MemAvailable)") do |v|
            memory = Arena::Tune::Budget.parse(v)
          end
        end.parse!(@argv)
        raise UsageError, "unexpected argument #{@argv.first.inspect}" unless @argv.empty?
        raise UsageError, "arena tune runs its own scenario (sustained): --scenario is for arena run" if builder.options[:scenarios]
        raise UsageError, "arena tune does not take --repeat or --rounds: it measures the start and every leading candidate 3 times and keeps a lead only when significant" if builder.options[:rounds]
        @budget_given = !builder.options[:max_time].nil?
        DEFAULTS.each { |name, value| builder.options[name] ||= value }
        builder.options[:scenarios] = ["sustained"]
        given = builder.options[:workloads]
        plan = builder.build
        # The built-in app's default workload for a tune is its mixed /random, not run's pair.
        plan = plan.with(workloads: [Plan::Workloads.builtin.fetch("random")]) if plan.app.builtin && given.nil? && !builder.options[:requests_file]
        raise UsageError, "arena tune searches for one workload at a time (got #{plan.workloads.map(&:name).join(", ")})" if plan.workloads.size > 1
        memory ||= builder.options[:memory_budget_mb]&.then { |mb| (mb * 1024**2).round } || Arena::Tune::Budget.default_bytes
        @tune_runtime = tune_runtime
        FileUtils.mkdir_p(plan.out_dir)
        Launch::Database.open(plan, err: @err) { |planned| run(planned, memory) }
      end

      private

      def run(plan, memory)
        Support::Affinity.pin_self(plan.machine.engine_cpus)
        FileUtils.mkdir_p(plan.out_dir)
        plan = budgeted(plan)
        started = Support::Clock.now
        deadline = started + plan.load.max_time
        constraints = Results::TuneConstraints.of(plan, memory_mib: Arena::Tune::Budget.mib(memory))
        environment = Results::HostFacts.capture(machine: plan.machine, engine_version: Load::Engine.version)
        store = Results::Store.new(path: File.join(plan.out_dir, "results.json"), environment: environment,
          plan: plan.to_h.merge(tune: constraints.to_record))
        output = Arena::Tune::Output.new(dir: plan.out_dir, constraints: constraints, machine: plan.machine,
          workload: plan.workloads.first, rackup: File.basename(plan.app.rackup), app: plan.app)
        engine = Load::Engine.new(dir: plan.out_dir, machine: plan.machine)
        starter = Launch::Starter.new(plan: plan)
        @err.puts "tune: #{plan.servers.map(&:key).join(", ")} on #{plan.workloads.first.name}; memory budget " \
          "#{constraints.memory_mib} MiB, at most #{plan.load.max_time.round} s; results in #{plan.out_dir}"
        interrupted = false
        finalists = []
        not_done = []
        looked = []
        begin
          searchable = plan.servers.filter_map { |adapter| searchable(plan, adapter, output) }
          searches_end = deadline - Arena::Tune::Estimate.head_to_head_s([searchable.size, Arena::Tune::Triage::FINALISTS].min, duration: plan.load.duration)
          # Every server's start first: the leaders earn the time left for a search; the rest keep their start.
          first_looks(plan, searchable, store, engine, starter, memory, searches_end, not_done, into: looked)
          looks = looked.to_h { |l| [l[0].key, l[4]] }
          chosen = Arena::Tune::Triage.searched(looks)
          looked.each_with_index do |(adapter, space, installation, trial, start), i|
            outcome = if chosen.include?(adapter.key) && Support::Clock.now < searches_end
              left = chosen.count { |key| looked[i..].any? { |l| l[0].key == key } }
              search(plan, adapter, space, trial, start, deadline: Support::Clock.now + (searches_end - Support::Clock.now) / left)
            else
              unsearched(adapter, start, looks, not_done)
            end
            kept = trial.close(keep: outcome.best&.settings)
            unbounded = unbounded(plan, adapter, outcome, installation, store, engine, starter, memory, trial.slo_ms)
            output.add(adapter: adapter, outcome: outcome, slo_ms: trial.slo_ms, unbounded: unbounded)
            output.write
            not_done << "#{adapter.key}: its search stopped at the time limit after #{outcome.candidates.size} configs" if outcome.stopped == "time"
            finalists << [Arena::Tune::Trial.configured(adapter, outcome.best.settings), outcome.best, installation, kept] if outcome.best
            if outcome.interrupted?
              interrupted = true
              break
            end
          end
          finalists = leading(finalists, not_done)
          output.answer = final(plan, finalists, output, store, engine, constraints, deadline, not_done) unless interrupted
        rescue Interrupt
          interrupted = true
        ensure
          # Every server still up stops here, whatever ended the tune.
          looked.each { |l| l[3].close }
          finalists.each { |f| f[3]&.stop }
          starter.cleanup
          store.finish(interrupted: interrupted)
        end
        path = output.write(interrupted: interrupted)
        Report::Files.new(dir: plan.out_dir, err: @err).write(store.view, answer: output.answer&.lines || [])
        # Where it was written first, then the answer, last: stderr is not
        # buffered and stdout is into a file or pipe, so the path line came out
        # inside the answer block of a captured log.
        @err.puts "tune: #{path} (#{(Support::Clock.now - started).round} s)"
        output.lines.each { |line| @out.puts line }
        @out.flush
        raise Interrupt if interrupted
        0
      end

      # The plan's budget (--max-time, else 10 minutes: the answer in one
      # command is worth having quickly), said before the search with what
      # the least search of every server would need.
      def budgeted(plan)
        per = Arena::Tune::Estimate.per_candidate_s(warmup: plan.load.warmup, duration: plan.load.duration, rails: plan.app.rails?)
        least = Arena::Tune::Estimate.least(plan.servers.filter_map { |adapter| least_search(plan, adapter) }, per_candidate_s: per)
        @err.puts Arena::Tune::Estimate.line(least, budget_s: plan.load.max_time, per_candidate_s: per, given: @budget_given) unless least.empty?
        plan
      end

      # [server key, settings searched, in an envelope?], or nil for a server with nothing to search.
      def least_search(plan, adapter)
        space = Arena::Tune::Space.for(adapter.class, machine: plan.machine, runtime: (adapter.runtime if @tune_runtime))
        space.empty? ? nil : [adapter.key, space.dimensions.size, adapter.envelope.bounded?]
      end

      # [adapter, its space, its installation], or nil with the reason noted in the output.
      def searchable(plan, adapter, output)
        space = Arena::Tune::Space.for(adapter.class, machine: plan.machine, runtime: (adapter.runtime if @tune_runtime))
        installation = adapter.class.install(plan.app)
        note = if space.empty? then "nothing to tune (it declares no tunable settings)"
        elsif adapter.class.tune_needs_front? && !plan.front then "skipped: its #{space.dimensions.map(&:name).join(", ")} setting needs --front nginx"
        elsif !installation.found then "not installed (#{installation.why})"
        end
        return [adapter, space, installation] unless note
        output.add(adapter: adapter, note: note)
        nil
      end

      # Each server's documented start, looked at once: into `looked`, as
      # it goes (so an interrupted tune still stops what it started),
      # [adapter, space, installation, trial, candidate or nil].
      def first_looks(plan, searchable, store, engine, starter, memory, searches_end, not_done, into:)
        share = (searches_end - Support::Clock.now) / [searchable.size, 1].max
        searchable.each do |adapter, space, installation|
          trial = Arena::Tune::Trial.new(plan: plan, adapter: adapter, installation: installation, workload: plan.workloads.first,
            store: store, engine: engine, starter: starter, memory_kb: memory / 1024, deadline: Support::Clock.now + share, log: ->(line) { @err.puts line })
          into << [adapter, space, installation, trial, nil]
          if Support::Clock.now >= searches_end
            not_done << "#{adapter.key}: not looked at (no time left)"
            next
          end
          @err.puts "#{adapter.key}: its start #{space.start.map { |k, v| "#{k}=#{v}" }.join(" ")} (#{adapter.class.tune_start&.source})"
          into.last[4] = trial.call(space.start)
        end
      end

      def search(plan, adapter, space, trial, start, deadline:)
        @err.puts "#{adapter.key}: searching #{space.dimensions.map { |d| "#{d.name} #{d.min}..#{d.max}" }.join(", ")} from #{space.start}"
        trial.deadline = deadline
        Arena::Tune::Search.new(space: space, evaluate: trial, deadline: deadline, cores: plan.machine.server_cores,
          rng: Random.new(plan.round_seed || Random.new_seed), measured: start ? {space.start => start} : {},
          round_s: plan.load.duration + 1.0).call
      end

      # A server not searched: its start stands, and why is said.
      def unsearched(adapter, start, looks, not_done)
        not_done << "#{adapter.key}: not searched beyond its start (#{Arena::Tune::Triage.why_not(adapter.key, looks)})" if start&.qualifies?
        Arena::Tune::Search::Outcome.new(candidates: start ? [start] : [], best: start&.qualifies? ? start : nil, noise: 0.03,
          stopped: (start && !start.qualifies?) ? "failed" : "not searched", duels: []).freeze
      end

      # The finalists that meet head to head (Triage.finalists); the rest are stopped.
      def leading(all, not_done)
        keep, out = Arena::Tune::Triage.finalists(all.to_h { |f| [f[0].key, f[1]] })
        all.select { |f| out.include?(f[0].key) }.each do |adapter, c, _, kept|
          kept&.stop
          not_done << "#{adapter.key}: not in the head to head (#{keep.size} finalists; it sustained #{Report::Format.rps(c.sustained_rps)} req/s)"
        end
        keep.map { |key| all.find { |f| f[0].key == key } }
      end

      # The winners head to head in interleaved rounds, then the answer.
      def final(plan, finalists, output, store, engine, constraints, deadline, not_done)
        @err.puts "head to head: #{finalists.map { |adapter, *| adapter.label }.join(", ")}" if finalists.size > 1
        h2h = Arena::Tune::HeadToHead.new(plan: plan, store: store, engine: engine, workload: plan.workloads.first,
          rounds: Arena::Tune::Estimate::HEAD_TO_HEAD_ROUNDS, deadline: deadline, seed: plan.round_seed || Random.new_seed,
          log: ->(line) { @err.puts line })
        entries = (finalists.size > 1) ? h2h.call(finalists) : finalists.map { |a, c, *| Arena::Tune::HeadToHead::Entry.new(key: a.key, adapter: a, candidate: c, rates: []) }
        ran = h2h.rounds_run(entries)
        if finalists.size > 1 && ran < Arena::Tune::Estimate::HEAD_TO_HEAD_ROUNDS
          not_done << "the head to head ran #{ran} of #{Arena::Tune::Estimate::HEAD_TO_HEAD_ROUNDS} rounds"
        end
        out = output.unanswered
        Arena::Tune::Answer.decide(entries: entries, files: output.files, versions: finalists.to_h { |a, _, i, _| [a.key, i.version] },
          slos: output.slos, memory_mib: constraints.memory_mib, not_done: not_done, out: out, gems: overlay_gems(plan))
      end

      # {server key => [gem, version]} for the servers Arena's overlay added.
      def overlay_gems(plan)
        entries = plan.app.respond_to?(:overlay) ? plan.app.overlay&.added.to_a : []
        entries.to_h { |e| [e.server, [e.gems.first, e.version]] }
      end

      # What the envelope costs: the winner once more, the same config
      # without the envelope, judged by the same SLO (lib/arena/plan/envelope.rb).
      def unbounded(plan, adapter, outcome, installation, store, engine, starter, memory, slo_ms)
        return nil unless adapter.envelope.bounded? && outcome.best && !outcome.interrupted?
        @err.puts "#{adapter.key}: the winner without its envelope (#{adapter.envelope}), for what the envelope costs"
        load = (slo_ms && !plan.load.slo_ms) ? plan.load.with(slo_ms: slo_ms) : plan.load
        Arena::Tune::Trial.new(plan: plan.with(load: load), adapter: adapter.rebuilt(envelope: Plan::Envelope::NONE),
          installation: installation, workload: plan.workloads.first, store: store, engine: engine, starter: starter,
          memory_kb: memory / 1024, log: ->(line) { @err.puts line }).then { |trial| trial.call(outcome.best.settings).tap { trial.close } }
      end
    end
  end
end
