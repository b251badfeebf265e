# frozen_string_literal: true

require "fileutils"

module Arena
  module Tune
    # One `arena tune`, from its plan to its exit status, in the order a
    # person would do it by hand (puma's Launcher: the command parses, the
    # session runs):
    #
    # 1. what to load (Plan::Discovery) and what the app runs today
    #    (Plan::Baseline), said first;
    # 2. the time for the confirmation rounds kept before anything else;
    # 3. every server's documented start looked at once (a Look each);
    # 4. the leaders searched in the time left (Search), the rest keep
    #    their start;
    # 5. the finalists head to head (HeadToHead), a provisional answer;
    # 6. the answer, the runner-up and the baseline in confirmation rounds
    #    of their own (Confirmation), whose verdict (Confirmed) is the answer.
    #
    # The terminal gets a line per candidate and the answer block; the
    # reasoning goes to report.md and, with --verbose, to the terminal.
    class Session
      # A server's first look: its searchable space, installation, the trial
      # that measures its configs, and its start's candidate (nil if none).
      Look = Struct.new(:adapter, :space, :installation, :trial, :start, keyword_init: true)

      # What the command chose: memory (the budget, bytes), tune_runtime
      # (search YJIT and jemalloc), verbose, budget_given (--max-time was set),
      # discover (ask the app what to load).
      # duration_given: --duration was set (a slow app's loads are not lengthened).
      # argv and cwd: the command's arguments and working directory, recorded for `arena tune --resume`.
      Options = Struct.new(:memory, :tune_runtime, :verbose, :budget_given, :discover, :duration_given, :argv, :cwd, keyword_init: true)

      LOOK_SLACK = 1.5

      def initialize(plan:, options:, err:, out:)
        @plan = plan
        @options = options
        @err = err
        @out = out
        @not_done = NotDone.new
        @looks = []
        @finalists = []
      end

      # -> the exit status: 0 with an answer, 2 when nothing was measured.
      def call
        Support::Affinity.pin_self(@plan.machine.engine_cpus)
        FileUtils.mkdir_p(@plan.out_dir)
        @plan = discovered(@plan) if @options.discover
        @plan = paced(@plan)
        @baseline = baseline
        budget
        open
        interrupted = search_and_answer
        finish(interrupted)
      end

      private

      def say(line) = @err.puts(line)

      def detail(line) = (say(line) if @options.verbose)

      def labels = @labels ||= Report::Labels.new(nil, machine: @plan.machine)

      # The paths the app answers, asked of it once (Plan::Discovery): said,
      # and how to choose others; none answering 2xx stops here (exit 2).
      def discovered(plan)
        found = Plan::Discovery.new(app: plan.app, dir: plan.out_dir, headers: plan.headers || {}, env: plan.env || {}).call
        found.lines.each { |line| say(line) }
        @discovered = Plan::Discovery.paths(found.workload)
        plan.with(workloads: [found.workload])
      end

      # How slow the app is (Plan::Pace), asked once of a user's app: its
      # boot plans the time, and a slow app's loads are sized to hold
      # Estimate::LOAD_REQUESTS (unless --duration was given).
      def paced(plan)
        return plan if plan.app.builtin
        @pace, why = Plan::Pace.new(app: plan.app, dir: plan.out_dir, headers: plan.headers || {}, env: plan.env || {}).call(plan.workloads.first)
        return plan.tap { say "tune: the app's pace was not measured (#{why}): loads of #{plan.load.duration} s" } unless @pace
        rps = 0.8 * @pace.rps_per_core * plan.machine.server_cores
        duration = @options.duration_given ? plan.load.duration : Estimate.duration_for(rps, default: plan.load.duration)
        say "tune: the app boots in #{@pace.boot_s} s and takes #{Report::Short.sig(@pace.service_ms)} ms a request in process " \
          "(#{Report::Short.sig(@pace.cpu_ms.to_f)} ms CPU): loads of #{duration} s"
        plan.with(load: plan.load.with(duration: duration))
      end

      # Seconds a server takes to boot the app: the pace's boot and a second, else a guess.
      def boot_s
        return @pace.boot_s + 1.0 if @pace
        Estimate::BOOT_S.fetch(@plan.app.rails? ? :rails : :rack)
      end

      # An open level's length at the app's pace: enough requests for a p99 (Scenarios::Sustained).
      def level_s
        return @plan.load.duration unless @pace
        Scenarios::Sustained::MIN_REQUESTS / (Scenarios::Sustained::FIRST * @pace.rps_per_core * @plan.machine.server_cores)
      end

      # What the app runs today (Plan::Baseline), said before the search.
      def baseline
        found = Plan::Baseline.new(dir: (@plan.app.dir unless @plan.app.builtin), env: ENV.to_h.merge(@plan.env || {}),
          cores: @plan.machine.server_cores).call
        say "tune: measured against #{found.yours}"
        found.notes.each { |note| say "tune: baseline: #{note}" } unless found.source == "the Rails default"
        found
      end

      # The budget (--max-time, else 10 minutes: the answer in one command is
      # worth having quickly): the confirmation's time is kept first, for the
      # answer, the runner-up (a second server) and the baseline; what the
      # least search of every server would need is said against the rest.
      def budget
        max = @plan.load.max_time
        # The answer, the runner-up, your config and your server's best config.
        sides = [@plan.servers.size, 2].min + ((@plan.servers.size > 2) ? 2 : 1)
        reserve = Confirmation.reserve_s(sides: sides, boot_s: boot_s, duration: @plan.load.duration, warmup: @plan.load.warmup)
        per = @per_candidate_s = Estimate.per_candidate_s(warmup: @plan.load.warmup, duration: @plan.load.duration, boot_s: boot_s, level_s: level_s)
        least = Estimate.least(@plan.servers.filter_map { |adapter| least_search(adapter) }, per_candidate_s: per)
        need = whole_s(least, per, reserve + scaling_s)
        # The cores rounds come last: they get their time only when the
        # budget holds the whole tune, never at the confirmation's cost.
        @scaling_kept = (need <= max) ? scaling_s : 0.0
        reserve += @scaling_kept
        # The rounds keep all their time when the budget holds them beside
        # every server's first look; a shorter one gives the looks their
        # time first, and the rounds at least SHARE of it.
        # A first look takes more than its loads (verification, settling,
        # the warm-up to a steady state): LOOK_SLACK of its estimate.
        looks = LOOK_SLACK * @plan.servers.size * per
        floor = Confirmation::SHARE * max
        @reserve_s = [reserve, (max - looks < floor) ? floor : max - looks].min.round
        Estimate.short_lines(need, budget_s: max).each { |line| say line }
        unless least.empty?
          Estimate.lines(least, budget_s: max - @reserve_s, per_candidate_s: per, given: @options.budget_given).each { |line| detail line }
          detail "tune: the least search: #{least.map { |s| "#{s.server} #{s.candidates}" }.join(", ")} candidates"
        end
        say "tune: #{@reserve_s} of #{max.round} s kept for #{Confirmation::MIN_ROUNDS}+ confirmation rounds" \
          "#{" and the cores rounds" if @scaling_kept.positive?}; the rest for the search"
      end

      # The whole tune at this pace (Estimate.whole_s): the leaders searched
      # are taken as the costliest least searches, one more for your server's.
      def whole_s(least, per, reserve)
        finalists = [@plan.servers.size, Triage::FINALISTS].min
        Estimate.whole_s(looks: @plan.servers.size, searched: least.max_by(Triage::SEARCHED + 1, &:seconds), per_candidate_s: per,
          head_to_head_s: Estimate.head_to_head_s(finalists, duration: @plan.load.duration), confirmation_s: reserve)
      end

      # [server key, settings searched, in an envelope?], or nil for a server with nothing to search.
      def least_search(adapter)
        space = space_for(adapter)
        space.empty? ? nil : [adapter.key, space.dimensions.size, adapter.envelope.bounded?]
      end

      def space_for(adapter) = Space.for(adapter.class, machine: @plan.machine, runtime: (adapter.runtime if @options.tune_runtime))

      # The results file, the tune's own output, the engine and the starter.
      def open
        @started = Support::Clock.now
        @deadline = @started + @plan.load.max_time
        @constraints = Results::TuneConstraints.of(@plan, memory_mib: Budget.mib(@options.memory))
        environment = Results::HostFacts.capture(machine: @plan.machine, engine_version: Load::Engine.version)
        @store = Results::Store.new(path: File.join(@plan.out_dir, "results.json"), environment: environment,
          plan: @plan.to_h.merge(tune: @constraints.to_record))
        @output = Output.new(dir: @plan.out_dir, constraints: @constraints, machine: @plan.machine,
          workload: @plan.workloads.first, rackup: File.basename(@plan.app.rackup), app: @plan.app)
        @output.resume = Results::TuneResume::Recipe.new(argv: @options.argv, cwd: @options.cwd, discovered: @discovered,
          digest: Bundle::AppDigest.of(@plan.app)).freeze
        @engine = Load::Engine.new(dir: @plan.out_dir, machine: @plan.machine)
        @starter = Launch::Starter.new(plan: @plan)
        say "tune: #{@plan.servers.size} servers on #{@plan.workloads.first.name}, memory budget " \
          "#{Report::Format.memory_kb(@constraints.memory_mib * 1024)}, at most #{@plan.load.max_time.round} s"
        detail "tune: #{@plan.servers.map(&:key).join(", ")}"
        say "tune: results in #{@plan.out_dir}"
      end

      # Steps 3-6; true when interrupted. Whatever ends it, every server still up stops.
      def search_and_answer
        searchable = @plan.servers.filter_map { |adapter| searchable(adapter) }
        finalists = Estimate.head_to_head_s([searchable.size, Triage::FINALISTS].min, duration: @plan.load.duration)
        # Every first look before the head to head: a budget that cannot
        # hold both cuts the head to head (the confirmation decides anyway).
        looks = LOOK_SLACK * searchable.size * @per_candidate_s
        finalists = finalists.clamp(0.0, [@deadline - @reserve_s - looks - Support::Clock.now, 0.0].max)
        @searches_end = @deadline - finalists - @reserve_s
        first_looks(searchable)
        return true if search_leaders == :interrupted
        @output.answer = with_notes(final(leading))
        false
      rescue Interrupt
        true
      ensure
        @looks.each { |look| look.trial.close }
        @finalists.each { |f| f.session&.stop }
        @starter.cleanup
      end

      # Written, then said: where first, then the answer, last (stderr is not
      # buffered and stdout is into a file or pipe, so the path line came
      # out inside the answer block of a captured log).
      def finish(interrupted)
        @store.finish(interrupted: interrupted)
        path = @output.write(interrupted: interrupted)
        # The report holds the answer and, after it, each server's search in full.
        Report::Files.new(dir: @plan.out_dir, err: @err).write(@store.view, answer: [*@output.answer&.lines, "", *@output.detail_lines])
        say "tune: #{path} (#{(Support::Clock.now - @started).round} s)"
        (@options.verbose ? @output.lines : @output.brief_lines).each { |line| @out.puts line }
        @out.flush
        raise Interrupt if interrupted
        @output.answer&.found? ? 0 : 2
      end

      # [adapter, its space, its installation], or nil with the reason noted in the output.
      def searchable(adapter)
        space = space_for(adapter)
        installation = adapter.class.install(@plan.app)
        unless installation.found
          @output.add(adapter: adapter, note: "not installed (#{installation.why})")
          return nil
        end
        return [adapter, space, installation] unless adapter.class.tune_needs_front? && !@plan.front
        # Its single-process config: more processes listen on more ports, which need --front nginx.
        single = Space.new(dimensions: space.dimensions.map { |d| Dimension.new(name: d.name, min: d.min, max: d.min).freeze })
        say "#{adapter.key}: at its single-process config (#{words(single.start)}): more need --front nginx"
        [adapter, single, installation]
      end

      def words(settings) = settings.map { |k, v| "#{k}=#{v}" }.join(" ")

      # Each server's documented start, looked at once, into @looks as it goes
      # (so an interrupted tune still stops what it started).
      def first_looks(searchable)
        share = (@searches_end - Support::Clock.now) / [searchable.size, 1].max
        searchable.each do |adapter, space, installation|
          trial = Trial.new(plan: @plan, adapter: adapter, installation: installation, workload: @plan.workloads.first,
            store: @store, engine: @engine, starter: @starter, memory_kb: @options.memory / 1024, deadline: Support::Clock.now + share,
            log: ->(line) { say line })
          @looks << Look.new(adapter: adapter, space: space, installation: installation, trial: trial)
          next @not_done += NotDone.not_looked(adapter.key) if Support::Clock.now >= @searches_end
          detail "#{adapter.key}: #{space.start.empty? ? "its only config (nothing to tune)" : "its start #{words(space.start)} (#{adapter.class.tune_start&.source})"}"
          @looks.last.start = trial.call(space.start)
        end
      end

      # The leaders (Triage.searched) searched in the time left, one after
      # another; each server's best becomes a finalist. :interrupted when a
      # search was.
      def search_leaders
        starts = @looks.to_h { |look| [look.adapter.key, look.start] }
        chosen = Triage.searched(starts, yours: baseline_server)
        @looks.each_with_index do |look, i|
          outcome = if chosen.include?(look.adapter.key) && !look.space.empty? && Support::Clock.now < @searches_end
            left = chosen.count { |key| @looks[i..].any? { |l| l.adapter.key == key } }
            search(look, deadline: Support::Clock.now + (@searches_end - Support::Clock.now) / left)
          else
            unsearched(look.adapter, look.start, starts)
          end
          record(look, outcome)
          return :interrupted if outcome.interrupted?
        end
      end

      def record(look, outcome)
        kept = look.trial.close(keep: outcome.best&.settings)
        @output.add(adapter: look.adapter, outcome: outcome, slo_ms: look.trial.slo_ms, unbounded: unbounded(look, outcome))
        @output.write
        @not_done += NotDone.search_stopped(look.adapter.key, outcome.candidates.size) if outcome.stopped == "time"
        return unless outcome.best
        @finalists << HeadToHead::Finalist.new(adapter: Trial.configured(look.adapter, outcome.best.settings), candidate: outcome.best,
          installation: look.installation, session: kept)
      end

      def search(look, deadline:)
        detail "#{look.adapter.key}: searching #{look.space.dimensions.map { |d| "#{d.name} #{d.min}..#{d.max}" }.join(", ")} from #{look.space.start}"
        look.trial.deadline = deadline
        Search.new(space: look.space, evaluate: look.trial, deadline: deadline, cores: @plan.machine.server_cores,
          rng: Random.new(@plan.round_seed || Random.new_seed), measured: look.start ? {look.space.start => look.start} : {},
          round_s: @plan.load.duration + 1.0).call
      end

      # A server not searched: its start stands, and why is said.
      def unsearched(adapter, start, starts)
        @not_done += NotDone.not_searched(adapter.key, Triage.why_not(adapter.key, starts)) if start&.qualifies?
        Search::Outcome.new(candidates: start ? [start] : [], best: start&.qualifies? ? start : nil, noise: 0.03,
          stopped: (start && !start.qualifies?) ? "failed" : "not searched", duels: []).freeze
      end

      # What the envelope costs: the winner once more, the same config
      # without the envelope, judged by the same SLO (lib/arena/plan/envelope.rb).
      def unbounded(look, outcome)
        adapter = look.adapter
        return nil unless adapter.envelope.bounded? && outcome.best && !outcome.interrupted?
        say "#{adapter.key}: the winner without its envelope (#{adapter.envelope}), for what the envelope costs"
        slo_ms = look.trial.slo_ms
        load = (slo_ms && !@plan.load.slo_ms) ? @plan.load.with(slo_ms: slo_ms) : @plan.load
        trial = Trial.new(plan: @plan.with(load: load), adapter: adapter.rebuilt(envelope: Plan::Envelope::NONE),
          installation: look.installation, workload: @plan.workloads.first, store: @store, engine: @engine, starter: @starter,
          memory_kb: @options.memory / 1024, log: ->(line) { say line })
        trial.call(outcome.best.settings).tap { trial.close }
      end

      # The finalists that meet head to head (Triage.finalists); the rest are stopped.
      def leading
        keep, out = Triage.finalists(@finalists.to_h { |f| [f.adapter.key, f.candidate] })
        @finalists.select { |f| out.include?(f.adapter.key) }.each do |f|
          f.session&.stop
          @not_done += NotDone.not_finalist(f.adapter.key, finalists: keep.size, rps: f.candidate.sustained_rps)
        end
        keep.map { |key| @finalists.find { |f| f.adapter.key == key } }
      end

      # The winners head to head in interleaved rounds, a provisional answer,
      # then the confirmation rounds' answer.
      def final(finalists)
        entries = head_to_head(finalists)
        versions = finalists.to_h { |f| [f.adapter.key, f.installation.version] }
        provisional = Answer.decide(entries: entries, files: @output.files, versions: versions, slos: @output.slos,
          memory_mib: @constraints.memory_mib, not_done: @not_done.lines, out: @output.unanswered, gems: overlay_gems)
        return provisional unless provisional.found?
        confirmed = confirm(provisional, entries, finalists)
        # What the confirmation did not do joins what the search did not.
        provisional = provisional.with(not_done: @not_done.lines)
        answer = Answer.confirm(provisional, confirmed: confirmed, baseline: @baseline, files: @output.files, versions: versions,
          gems: overlay_gems, measured_on: measured_on(confirmed.pick&.adapter), dir: @plan.out_dir)
        answer.confirmed? ? answer.with(scaling: scaling(confirmed.pick)) : answer
      end

      # The answer on every core against one (Scaling), in the time kept for it.
      def scaling(pick)
        if @scaling_kept.zero?
          why = (@plan.machine.cores < 2) ? "this machine has one core" : Scaling.later(@plan.out_dir, scaling_s)
          return Scaling::Result.new(one: pick.adapter, cores: @plan.machine.cores, why: why).freeze
        end
        say "cores: #{labels.call(pick.key)} on 1 core against every core"
        Scaling.new(plan: @plan, store: @store, engine: @engine, workload: @plan.workloads.first, deadline: @deadline, seed: seed,
          log: ->(line) { say line }).call(pick.adapter, pick.installation)
      end

      # The time kept for the scaling rounds (none on one core).
      def scaling_s
        return 0.0 if @plan.machine.cores < 2
        Scaling::ROUNDS * 2 * Confirmation.side_s(boot_s: boot_s, duration: @plan.load.duration, warmup: @plan.load.warmup)
      end

      # The answer's standing and, under it, what the app's own files say of
      # how it runs against how the rounds ran it (Notes).
      def with_notes(answer)
        return answer unless answer.found?
        facts = Notes.facts(app: @plan.app, front: @plan.front, servers: @plan.servers)
        answer.with(standing: Notes.standing(Servers.fetch(answer.server), app: @plan.app, servers: @store.view.servers),
          notes: Notes.lines(server: answer.server, facts: facts))
      end

      def head_to_head(finalists)
        return finalists.map { |f| HeadToHead::Entry.new(key: f.adapter.key, adapter: f.adapter, candidate: f.candidate, rates: []) } if finalists.size < 2
        AnswerWords.listed("head to head:", finalists.map { |f| labels.call(f.adapter.label) }).each { |line| say line }
        h2h = HeadToHead.new(plan: @plan, store: @store, engine: @engine, workload: @plan.workloads.first,
          rounds: Estimate::HEAD_TO_HEAD_ROUNDS, deadline: @deadline - @reserve_s, seed: seed, log: ->(line) { say line })
        h2h.call(finalists).tap do |entries|
          ran = h2h.rounds_run(entries)
          @not_done += NotDone.head_to_head(ran, of: Estimate::HEAD_TO_HEAD_ROUNDS) if ran < Estimate::HEAD_TO_HEAD_ROUNDS
        end
      end

      def seed = @seed ||= @plan.round_seed || Random.new_seed

      # The baseline as a server adapter (what the app runs today), and its server's key.
      def baseline_adapter = @baseline_adapter ||= Plan::ServerList.parse([@baseline.spec], machine: @plan.machine).first

      def baseline_server = baseline_adapter.key

      # What the answer was measured on: the server's cores and memory, its settings per core.
      def measured_on(pick)
        pick && AnswerWords.measured_on(pick, server_cores: @plan.machine.server_cores, cores: @plan.machine.cores, memory_kb: memory_total_kb)
      end

      def memory_total_kb = Probes::Procfs.memory_total_kb

      # The answer, the runner-up and the baseline in confirmation rounds of
      # their own (Confirmation), each config once; their verdict.
      def confirm(provisional, entries, finalists)
        sides = confirmation_sides(provisional, entries, finalists)
        AnswerWords.listed("confirmation:", sides.map { |s| "#{s.role} #{labels.call(s.key)}" }).each { |line| say line }
        result = Confirmation.new(plan: @plan, store: @store, engine: @engine, workload: @plan.workloads.first, deadline: @deadline - @scaling_kept,
          seed: seed, log: ->(line) { say line },
          judge: ->(r) { Confirmed.narrow?(r, target_pct: Confirmation::TARGET_PCT) }).call(sides)
        confirmation_notes(result)
        Confirmed.decide(result, baseline_key: @baseline_key, stay_key: @stay_key)
      end

      # The answer's, the runner-up's and the baseline's sides, each config once.
      def confirmation_sides(provisional, entries, finalists)
        sides = []
        add = lambda do |role, adapter, installation|
          return if adapter.nil? || sides.any? { |s| s.key == adapter.label }
          sides << Confirmation::Side.of(role: role, adapter: adapter, installation: installation)
        end
        [["answer", provisional.server], ["runner-up", provisional.runner_up]].each do |role, key|
          add.call(role, entries.find { |e| e.key == key }&.adapter, finalists.find { |f| f.adapter.key == key }&.installation)
        end
        base = baseline_adapter
        installation = base.class.install(@plan.app)
        @baseline_key = sides.find { |s| s.key == base.label }&.key || base.label
        if installation.found
          add.call("baseline", base, installation)
        else
          @not_done += NotDone.baseline(@baseline.words, installation.why)
        end
        # Staying: the best config the search found for your server, a side of its own unless it is one already.
        stay = @finalists.find { |f| f.adapter.key == baseline_server }
        @stay_key = stay&.adapter&.label
        add.call("stay", stay.adapter, stay.installation) if stay
        sides
      end

      def confirmation_notes(result) = @not_done += NotDone.confirmation(result)

      def overlay_gems = Bundle::Result.added_gems(@plan.app)
    end
  end
end
