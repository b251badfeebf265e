# frozen_string_literal: true

require_relative "../bundle/result"
require_relative "../system/procfs"
require_relative "answer"
require_relative "answer_words"
require_relative "confirmation"
require_relative "confirmed"
require_relative "not_done"
require_relative "scaling"

module Arena
  module Tune
    # The tune's confirmation: the provisional answer, the runner-up, the
    # baseline and your server's best config in confirmation rounds of their
    # own (Confirmation), each config once; their verdict (Confirmed) is the
    # answer; then, in the time kept for it, the answer on every core
    # against one (Scaling).
    class ConfirmPhase
      def initialize(ctx)
        @ctx = ctx
      end

      # provisional: HeadToHeadPhase's; searched: SearchPhase's (your
      # server's best among its finalists); ground: the Prelude's (the
      # baseline); time: the TimeBudget. -> the Answer.
      def call(provisional, searched:, ground:, time:)
        return provisional.answer unless provisional.answer.found?
        sides, stay, missing = sides(provisional, searched.finalists, ground)
        confirmed, notes = confirm(sides, time, baseline_key: ground.yours.label, stay_key: stay&.adapter&.label)
        # What the confirmation did not do joins what the phases before it did not.
        answer = Answer.confirm(provisional.answer.with(not_done: (provisional.not_done + missing + notes).lines), confirmed: confirmed,
          baseline: ground.baseline, files: @ctx.output.files, versions: provisional.finalists.to_h { |f| [f.adapter.key, f.installation.version] },
          gems: Bundle::Result.added_gems(@ctx.plan.app), measured_on: measured_on(confirmed.pick&.adapter), dir: @ctx.plan.out_dir)
        answer.confirmed? ? answer.with(scaling: scaling(confirmed, time)) : answer
      end

      # Your server's best config, [adapter, installation], for the cores
      # rounds beside the answer's: nil when it is the answer's or did not run.
      def self.staying(confirmed)
        stay = confirmed.stay
        [stay.adapter, stay.installation] if stay&.alive? && !stay.equal?(confirmed.pick)
      end

      # The configs the cores rounds will run, seen from the sides still in
      # the confirmation rounds: the answer's, and your server's best
      # (stay_key) while it is in them.
      def self.cores_configs(alive, stay_key) = (alive.any? { |s| s.key == stay_key }) ? 2 : 1

      private

      # [Confirmed, NotDone of the rounds it did not count]. The rounds end
      # where the cores rounds' time begins: theirs for your server's best
      # beside the answer's while it is in the rounds, the answer's alone
      # once it is out.
      def confirm(sides, time, baseline_key:, stay_key:)
        AnswerWords.listed("confirmation:", sides.map { |s| "#{s.role} #{@ctx.labels.call(s.key)}" }).each { |line| @ctx.say line }
        result = Confirmation.new(plan: @ctx.plan, store: @ctx.store, engine: @ctx.engine, workload: @ctx.workload,
          deadline: ->(alive) { time.confirmation_deadline(configs: ConfirmPhase.cores_configs(alive, stay_key)) }, seed: @ctx.seed, log: @ctx.log,
          judge: ->(r) { Confirmed.narrow?(r, target_pct: Confirmation::TARGET_PCT) }).call(sides)
        [Confirmed.decide(result, baseline_key: baseline_key, stay_key: stay_key), NotDone.confirmation(result)]
      end

      # [the sides (the answer's, the runner-up's, the baseline's and
      # staying's, each config once), your server's finalist (staying),
      # NotDone for a baseline that is not installed].
      def sides(provisional, searched, ground)
        sides = []
        add = lambda do |role, adapter, installation|
          return if adapter.nil? || sides.any? { |s| s.key == adapter.label }
          sides << Confirmation::Side.of(role: role, adapter: adapter, installation: installation)
        end
        answer = provisional.answer
        [["answer", answer.server], ["runner-up", answer.runner_up]].each do |role, key|
          add.call(role, provisional.entries.find { |e| e.key == key }&.adapter, provisional.finalists.find { |f| f.adapter.key == key }&.installation)
        end
        base = ground.yours
        installation = base.class.install(@ctx.plan.app)
        add.call("baseline", base, installation) if installation.found
        # Staying: the best config the search found for your server, a side of its own unless it is one already.
        stay = searched.find { |f| f.adapter.key == base.key }
        add.call("stay", stay.adapter, stay.installation) if stay
        [sides, stay, installation.found ? NotDone.new : NotDone.baseline(ground.baseline.words, installation.why)]
      end

      # The answer on every core against one (Scaling), in the time kept for
      # it; else why not (Scaling.unkept).
      def scaling(confirmed, time)
        pick = confirmed.pick
        machine = @ctx.plan.machine
        unless time.scaling?
          why = Scaling.unkept(pick.adapter, cores: machine.cores, measurements: @ctx.store.view.measurements, dir: @ctx.plan.out_dir, front: @ctx.plan.front,
            seconds: Scaling.rounds_s(confirmed.round_s, sides: sides_of(confirmed), configs: ConfirmPhase.staying(confirmed) ? 2 : 1) ||
              time.cores_rounds_s)
          return Scaling::Result.new(one: pick.adapter, cores: machine.cores, server_cores: machine.server_cores, why: why).freeze
        end
        @ctx.say "cores: #{@ctx.labels.call(pick.key)} on 1 core against every core"
        Scaling.new(plan: @ctx.plan, store: @ctx.store, engine: @ctx.engine, workload: @ctx.workload, deadline: time.deadline, seed: @ctx.seed,
          log: @ctx.log).call(pick.adapter, pick.installation, stay: ConfirmPhase.staying(confirmed),
            side_s: confirmed.round_s&./(sides_of(confirmed)))
      end

      # How many configs each confirmation round started.
      def sides_of(confirmed) = [confirmed.pick, confirmed.other, confirmed.baseline, confirmed.stay].compact.uniq(&:key).size

      # What the answer was measured on: the server's cores and memory, its settings per core.
      def measured_on(pick)
        machine = @ctx.plan.machine
        pick && AnswerWords.measured_on(pick, server_cores: machine.server_cores, cores: machine.cores, memory_kb: System::Procfs.memory_total_kb)
      end
    end
  end
end
