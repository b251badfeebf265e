# frozen_string_literal: true

require_relative "../bundle/result"
require_relative "../core"
require_relative "../load/engine"
require_relative "../plan/baseline"
require_relative "../plan/plan"
require_relative "../planner/server_list"
require_relative "../probes/machine_speed"
require_relative "../report/files"
require_relative "../results/store"
require_relative "../results/tune_answer"
require_relative "../results/tune_resume"
require_relative "../stats/median"
require_relative "../support/affinity"
require_relative "../support/clock"
require_relative "../system/procfs"
require_relative "answer"
require_relative "answer_words"
require_relative "confirm_phase"
require_relative "confirmation"
require_relative "confirmed"
require_relative "not_done"
require_relative "scaling"

module Arena
  module Tune
    # `arena tune --resume DIR`: more confirmation rounds for a finished
    # tune's answer, runner-up and baseline, with no new search. The configs
    # are the ones the tune confirmed (their labels in tune.json), started
    # afresh each round as before (Confirmation); the new rounds go on from
    # the last earlier one, and the verdict (Confirmed) is taken on all of
    # them. The cores rounds (Scaling) the tune had no time for come after
    # them, in the time kept for them. Each measurement is appended to DIR/results.json as it is made,
    # so an interrupted resume keeps its rounds for the next one; tune.json's
    # answer is replaced only when the rounds end.
    #
    # The command checks that the app is the one the tune measured
    # (Bundle::AppDigest) before this starts.
    class Resume
      # record: Results::TuneResume; max_time: seconds the new rounds may take.
      def initialize(plan:, record:, max_time:, err:, out:, verbose: false)
        @plan = plan
        @record = record
        @max_time = max_time
        @err = err
        @out = out
        @verbose = verbose
      end

      # -> 0 with the answer printed again.
      def call
        Support::Affinity.pin_self(@plan.machine.engine_cpus)
        @baseline = baseline
        sides = Resume.sides(@record, machine: @plan.machine, app: @plan.app)
        prior = Resume.rounds(@record)
        say "tune: resuming #{@record.dir}: #{prior.size} earlier rounds of #{sides.map { |s| "#{s.role} #{s.key}" }.join(", ")}"
        @started = Support::Clock.now
        @store = Results::Store.reopen(File.join(@record.dir, "results.json"))
        @engine = Load::Engine.new(dir: @plan.out_dir, machine: @plan.machine)
        cores_s = cores_kept(Resume.cores_s(@record, machine: @plan.machine, sides: sides, measurements: @store.view.measurements, front: @plan.front))
        say "tune: at most #{@max_time.round} s of confirmation rounds more#{" and the cores rounds (about #{cores_s.round} s)" if cores_s.positive?}, no search"
        result = rounds(sides, prior, deadline: @started + [@max_time - cores_s, 0].max)
        answer, confirmed = answer(result, sides)
        finish(@cores ? with_cores(answer, confirmed) : answer, result.rounds.size - prior.size)
      end

      # The cores rounds' seconds when --max-time holds them, else 0 and
      # said: a resume of 480 s began cores rounds of about 600 s, ran 2 of
      # the 3 that give a figure, and gave nothing for them.
      def cores_kept(seconds)
        @cores = seconds <= @max_time
        return seconds if @cores
        say "tune: the cores rounds need about #{seconds.round} s, more than --max-time: only confirmation rounds now " \
          "(--max-time #{(seconds / 60.0).ceil * 60} or more measures them)"
        0.0
      end

      # The time the cores rounds (Scaling) take at the pace of the earlier
      # rounds, when the tune did not measure them and they can be measured
      # for its answer's config (Scaling.unmeasurable, from the search's
      # measurements), with your server's best config beside it where that
      # is another config and can be measured too; else 0.
      def self.cores_s(record, machine:, sides:, measurements:, front: nil)
        answer = sides.find { |s| s.role == "answer" }
        return 0.0 if answer.nil? || record.cores&.measured?
        fair = ->(side) { side && !Scaling.why_not(side.adapter, cores: machine.cores, measurements: measurements, front: front) }
        return 0.0 unless fair.call(answer)
        stay = sides.find { |s| s.role == "stay" }
        configs = (fair.call(stay) && stay.key != answer.key) ? 2 : 1
        Scaling.rounds_s(Stats.median(record.rounds.filter_map(&:seconds)), sides: sides.size, configs: configs) || 0.0
      end

      # The confirmation's configs as sides, with their earlier rounds' figures.
      def self.sides(record, machine:, app:)
        record.sides.map do |role, label|
          adapter = Planner::ServerList.parse([label], machine: machine).first
          installation = adapter.class.install(app)
          raise UsageError, "#{label}: not installed now (#{installation.why}): its rounds cannot go on" unless installation.found
          side = Confirmation::Side.of(role: role, adapter: adapter, installation: installation)
          record.figures.fetch(label, {}).each do |n, f|
            side.rps[n] = f.rps
            side.p99_ms[n] = f.p99_ms
            side.pss_kb[n] = f.pss_kb
          end
          side
        end
      end

      # The earlier rounds, as Confirmation's rounds (their speed readings as Readings).
      def self.rounds(record)
        record.rounds.map do |r|
          speeds = r.speeds.transform_values { |cpu, memory| (cpu && memory) ? Probes::MachineSpeed::Reading.new(cpu_ms: cpu, memory_ms: memory).freeze : nil }
          Confirmation::Round.new(number: r.number, order: r.order, speeds: speeds.freeze, seconds: r.seconds, design: r.design).freeze
        end
      end

      # The provisional answer the tune's record stands for: its server, what
      # would change it, what was left out, and what it did not do in the
      # search (the confirmation's own notes are made again from all the rounds).
      def self.provisional(answer)
        not_done = Array(answer["not_done"]).reject { |t| t.start_with?("the confirmation counted", "confirmation rounds ") }
        Answer.new(server: answer["server"], changes: Array(answer["changes"]), not_done: not_done, out: answer["out"] || {},
          slo_ms: answer["slo_ms"], memory_mib: answer["memory_mib"], band_pct: Confirmed::BAND_PCT).freeze
      end

      # tune.json's record of the cores rounds (Results::TuneResume::CoresRecord) as a Scaling::Result.
      def self.scaling_of(record, one, machine:)
        many = record.config && Planner::ServerList.parse([record.config], machine: machine).first
        Scaling::Result.new(factor: (record.measured? ? [record.ratio, record.interval] : nil), one: one, many: many, cores: record.cores,
          server_cores: record.server_cores || machine.server_cores, rounds: record.rounds, pss_kb: record.pss_kb, why: record.why,
          stay: record.stay && scaling_of(record.stay, nil, machine: machine)).freeze
      end

      private

      def say(line) = @err.puts(line)

      def baseline
        Plan::Baseline.new(dir: (@plan.app.dir unless @plan.app.builtin), env: ENV.to_h.merge(@plan.env || {}),
          cores: @plan.machine.server_cores).call
      end

      def rounds(sides, prior, deadline:)
        Confirmation.new(plan: @plan, store: @store, engine: @engine, workload: @plan.workloads.first, deadline: deadline,
          seed: Plan.new_seed, log: ->(line) { say line },
          judge: ->(r) { Confirmed.narrow?(r, target_pct: Confirmation::TARGET_PCT) }).call(sides, prior: prior)
      rescue Interrupt
        @store.finish(interrupted: true)
        raise
      end

      # The answer on every core against one: the tune's own rounds when it
      # measured them for this config, else measured now in the time left.
      def with_cores(answer, confirmed)
        pick = confirmed.pick
        return answer unless answer.confirmed? && pick
        before = @record.cores
        if before&.measured? && Scaling.process_key(pick.adapter) && Scaling.scaled(pick.adapter, @plan.machine.cores).label == before.config
          return answer.with(scaling: Resume.scaling_of(before, pick.adapter, machine: @plan.machine))
        end
        return answer if @plan.machine.cores < 2
        say "cores: #{pick.key} on 1 core against every core"
        answer.with(scaling: Scaling.new(plan: @plan, store: @store, engine: @engine, workload: @plan.workloads.first,
          deadline: @started + @max_time, seed: Plan.new_seed, log: ->(line) { say line })
          .call(pick.adapter, pick.installation, stay: ConfirmPhase.staying(confirmed)))
      rescue Interrupt
        @store.finish(interrupted: true)
        raise
      end

      def answer(result, sides)
        base = Planner::ServerList.parse([@baseline.spec], machine: @plan.machine).first
        confirmed = Confirmed.decide(result, baseline_key: sides.find { |s| s.key == base.label }&.key || base.label,
          stay_key: sides.find { |s| s.role == "stay" }&.key)
        provisional = Resume.provisional(@record.answer)
        provisional = provisional.with(not_done: provisional.not_done + NotDone.confirmation(result).lines)
        pick = confirmed.pick&.adapter
        measured_on = pick && AnswerWords.measured_on(pick, server_cores: @plan.machine.server_cores, cores: @plan.machine.cores,
          memory_kb: System::Procfs.memory_total_kb)
        [Answer.confirm(provisional, confirmed: confirmed, baseline: @baseline, files: @record.files,
          versions: sides.to_h { |s| [s.adapter.key, s.installation.version] }, gems: Bundle::Result.added_gems(@plan.app),
          measured_on: measured_on, dir: @record.dir), confirmed]
      end

      # results.json finished, tune.json's answer replaced, the reports
      # rendered again, then the answer printed.
      def finish(answer, added)
        @store.finish
        seconds = Support::Clock.now - @started
        Results::TuneResume.write(@record.dir, Results::TuneResume.resumed(@record.tune_document, answer: answer.to_record,
          rounds: added, seconds: seconds))
        Report::Files.new(dir: @record.dir, err: @err).write(@store.view, answer: answer.lines)
        say "tune: #{added} more rounds in #{seconds.round} s; #{File.join(@record.dir, Results::TuneAnswer::FILE)}"
        (@verbose ? answer.lines : answer.lines(brief: true)).each { |line| @out.puts line }
        @out.flush
        answer.found? ? 0 : 2
      end
    end
  end
end
