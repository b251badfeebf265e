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
    #
    # On a user's app with no flags: a Rails app that forces SSL gets the
    # header its proxy sends (Plan::ProxyHeaders), the paths to load are
    # asked of the app (Plan::Discovery), and what it runs today is read
    # (Tune::Baseline). After the search, the answer, the runner-up and the
    # baseline meet in confirmation rounds of their own (Tune::Confirmation),
    # whose time is kept before the search starts; the answer's margin and
    # gain come from them alone (Tune::Confirmed). Exit 2 when nothing
    # could be measured.
    class Tune < Base
      BANNER = "usage: arena tune [--servers LIST] [--workload NAME] [--memory SIZE] [--slo MS] [--max-time SEC] [run's options]"
      # Shorter than `arena run`'s: a tune measures many configs.
      DEFAULTS = {duration: 2.0, warmup: 0.5, max_time: 600.0, settle_timeout: 10.0}.freeze

      def call
        builder = Plan::Builder.new(say: ->(line) { @err.puts line })
        memory = nil
        tune_runtime = false
        proxy_headers = true
        OptionParser.new do |parser|
          parser.banner = BANNER
          builder.define(parser)
          parser.on("--tune-runtime", "also search YJIT and jemalloc (off and on) for every MRI server") { tune_runtime = true }
          parser.on("--no-proxy-headers", "no X-Forwarded-Proto: https for an app that forces SSL (default: sent, as its TLS proxy would)") { proxy_headers = false }
          parser.on("--verbose", "each server's search in full: its model, duels and why (default: a line a server; report.md has them)") { @verbose = true }
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
        # A user's app with neither --workload nor --requests: its paths are asked of it (Plan::Discovery).
        @discover = !plan.app.builtin && given.nil? && !builder.options[:requests_file]
        plan = proxied(plan, on: proxy_headers)
        memory ||= builder.options[:memory_budget_mb]&.then { |mb| (mb * 1024**2).round } || Arena::Tune::Budget.default_bytes
        @tune_runtime = tune_runtime
        FileUtils.mkdir_p(plan.out_dir)
        Launch::Database.open(plan, err: @err) { |planned| run(planned, memory) }
      end

      private

      def run(plan, memory)
        Support::Affinity.pin_self(plan.machine.engine_cpus)
        FileUtils.mkdir_p(plan.out_dir)
        plan = discovered(plan) if @discover
        @baseline = baseline(plan)
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
          searches_end = deadline - Arena::Tune::Estimate.head_to_head_s([searchable.size, Arena::Tune::Triage::FINALISTS].min, duration: plan.load.duration) -
            @reserve_s
          # Every server's start first: the leaders earn the time left for a search; the rest keep their start.
          first_looks(plan, searchable, store, engine, starter, memory, searches_end, not_done, into: looked)
          looks = looked.to_h { |l| [l[0].key, l[4]] }
          chosen = Arena::Tune::Triage.searched(looks)
          looked.each_with_index do |(adapter, space, installation, trial, start), i|
            outcome = if chosen.include?(adapter.key) && !space.empty? && Support::Clock.now < searches_end
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
        # The report holds the answer and, after it, each server's search in full.
        Report::Files.new(dir: plan.out_dir, err: @err).write(store.view, answer: [*output.answer&.lines, "", *output.detail_lines])
        # Where it was written first, then the answer, last: stderr is not
        # buffered and stdout is into a file or pipe, so the path line came out
        # inside the answer block of a captured log.
        @err.puts "tune: #{path} (#{(Support::Clock.now - started).round} s)"
        (@verbose ? output.lines : output.brief_lines).each { |line| @out.puts line }
        @out.flush
        raise Interrupt if interrupted
        # Nothing measured, no answer: not a success.
        output.answer&.found? ? 0 : 2
      end

      # A Rails app that forces SSL gets the header its TLS proxy sends (Plan::ProxyHeaders).
      def proxied(plan, on:)
        headers, line = Plan::ProxyHeaders.for(app_dir: (plan.app.dir unless plan.app.builtin), given: plan.headers || {}, off: !on)
        return plan if headers.empty?
        @err.puts line
        plan.with(headers: (plan.headers || {}).merge(headers).freeze)
      end

      # The paths the app answers, asked of it once (Plan::Discovery): said,
      # and how to choose others; none answering 2xx stops here (exit 2).
      def discovered(plan)
        found = Plan::Discovery.new(app: plan.app, dir: plan.out_dir, headers: plan.headers || {}, env: plan.env || {}).call
        found.lines.each { |line| @err.puts line }
        plan.with(workloads: [found.workload])
      end

      # What the app runs today (Tune::Baseline), said before the search.
      def baseline(plan)
        found = Plan::Baseline.new(dir: (plan.app.dir unless plan.app.builtin), env: ENV.to_h.merge(plan.env || {}),
          cores: plan.machine.server_cores).call
        @err.puts "tune: the baseline is #{found.yours}: the answer is measured against it"
        found.notes.each { |note| @err.puts "tune: baseline: #{note}" } unless found.source == "the Rails default"
        found
      end

      # The plan's budget (--max-time, else 10 minutes: the answer in one
      # command is worth having quickly), said before the search with what
      # the least search of every server would need.
      def budgeted(plan)
        per = Arena::Tune::Estimate.per_candidate_s(warmup: plan.load.warmup, duration: plan.load.duration, rails: plan.app.rails?)
        least = Arena::Tune::Estimate.least(plan.servers.filter_map { |adapter| least_search(plan, adapter) }, per_candidate_s: per)
        # The confirmation's time first: the answer, the runner-up (a second server) and the baseline.
        sides = [plan.servers.size, 2].min + 1
        @reserve_s = [Arena::Tune::Confirmation.reserve_s(sides: sides, boot_s: Arena::Tune::Estimate::BOOT_S.fetch(plan.app.rails? ? :rails : :rack),
          duration: plan.load.duration, warmup: plan.load.warmup), Arena::Tune::Confirmation::SHARE * plan.load.max_time].min.round
        @err.puts Arena::Tune::Estimate.line(least, budget_s: plan.load.max_time - @reserve_s, per_candidate_s: per, given: @budget_given) unless least.empty?
        @err.puts "tune: #{@reserve_s} s of the #{plan.load.max_time.round} s kept for the confirmation rounds (the answer, " \
          "#{"the runner-up, " if sides > 2}the baseline: #{Arena::Tune::Confirmation::MIN_ROUNDS} rounds at least); the search gets the rest"
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
        if adapter.class.tune_needs_front? && !plan.front
          # Its single-process config: more processes listen on more ports, which need --front nginx.
          space = Arena::Tune::Space.new(dimensions: space.dimensions.map { |d| Arena::Tune::Dimension.new(name: d.name, min: d.min, max: d.min).freeze })
          @err.puts "#{adapter.key}: at its single-process config (#{space.start.map { |k, v| "#{k}=#{v}" }.join(" ")}): more need --front nginx"
        end
        note = "not installed (#{installation.why})" unless installation.found
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
          start = space.start.empty? ? "its only config (nothing to tune)" : "its start #{space.start.map { |k, v| "#{k}=#{v}" }.join(" ")} (#{adapter.class.tune_start&.source})"
          @err.puts "#{adapter.key}: #{start}"
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
        versions = finalists.to_h { |a, _, i, _| [a.key, i.version] }
        provisional = Arena::Tune::Answer.decide(entries: entries, files: output.files, versions: versions,
          slos: output.slos, memory_mib: constraints.memory_mib, not_done: not_done, out: out, gems: overlay_gems(plan))
        return provisional unless provisional.found?
        confirmed = confirm(plan, provisional, entries, finalists, store, engine, deadline, not_done)
        pick = confirmed.pick&.adapter
        measured_on = pick && Arena::Tune::AnswerWords.measured_on(pick, server_cores: plan.machine.server_cores,
          cores: plan.machine.cores, memory_kb: memory_total_kb)
        Arena::Tune::Answer.confirm(provisional, confirmed: confirmed, baseline: @baseline, files: output.files, versions: versions,
          gems: overlay_gems(plan), measured_on: measured_on)
      end

      # The machine's memory (MemTotal), for the line that says what the answer was measured on.
      def memory_total_kb
        File.read("/proc/meminfo")[/^MemTotal:\s+(\d+)/, 1]&.to_i
      rescue SystemCallError
        nil
      end

      # The answer, the runner-up and the baseline in confirmation rounds of
      # their own (Tune::Confirmation), each config once; their verdict.
      def confirm(plan, provisional, entries, finalists, store, engine, deadline, not_done)
        sides = []
        add = lambda do |role, adapter, installation|
          return if adapter.nil? || sides.any? { |s| s.key == adapter.label }
          sides << Arena::Tune::Confirmation::Side.of(role: role, adapter: adapter, installation: installation)
        end
        installed = ->(key) { finalists.find { |f| f[0].key == key }&.[](2) }
        [["answer", provisional.server], ["runner-up", provisional.runner_up]].each do |role, key|
          add.call(role, entries.find { |e| e.key == key }&.adapter, installed.call(key))
        end
        base = Plan::ServerList.parse([@baseline.spec], machine: plan.machine).first
        base_installation = base.class.install(plan.app)
        base_key = sides.find { |s| s.key == base.label }&.key || base.label
        if base_installation.found
          add.call("baseline", base, base_installation)
        else
          not_done << "the baseline #{@baseline.words}: not installed (#{base_installation.why})"
        end
        @err.puts "confirmation: #{sides.map { |s| "#{s.role} #{s.key}" }.join(", ")}, in rounds of their own"
        result = Arena::Tune::Confirmation.new(plan: plan, store: store, engine: engine, workload: plan.workloads.first, deadline: deadline,
          seed: plan.round_seed || Random.new_seed, log: ->(line) { @err.puts line },
          judge: ->(r) { Arena::Tune::Confirmed.narrow?(r, target_pct: Arena::Tune::Confirmation::TARGET_PCT) }).call(sides)
        counted = result.counted.size
        if counted < Arena::Tune::Confirmation::MIN_ROUNDS
          not_done << "the confirmation counted #{counted} of #{Arena::Tune::Confirmation::MIN_ROUNDS} rounds"
        end
        unless result.flagged.empty?
          kept = result.flagged_kept? ? "kept: too few rounds without them" : "left out"
          not_done << "confirmation rounds #{result.flagged.join(", ")} read the machine >15% off its median speed: #{kept}"
        end
        Arena::Tune::Confirmed.decide(result, baseline_key: base_key)
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
