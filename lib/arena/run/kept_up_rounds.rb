# frozen_string_literal: true

module Arena
  class Runner
    # The rounds with every server kept up (--between-rounds keep, the
    # default): each config started and verified once, every unit warmed up
    # once before round 1, the rounds run across all of them. Runner runs
    # these or RestartedRounds, as the plan says (Runner#keep_up?).
    module KeptUpRounds
      private

      def rounds_kept_up(slots)
        slots.each do |slot|
          start(slot)
          break if @root_not_found
        end
        # Every unit warms up to a steady state once, before round 1 (in a
        # shuffled order of its own); the servers stay warm. No round's
        # measurement follows its own warm-up, so every round is measured the
        # same way (before, only round 1's did; it read 11% above rounds 2-3 in
        # two quiet arenas, and still reads high without it: see README).
        @warmups = warm_all(Rounds.order(units_of(slots), round: 0, seed: seed))
        @warmed = @warmups.keys.freeze
        @sizes = round_sizes(@warmups)
        warm = @plan.load.with(warmup_max: 0.0)
        rounds.times do |i|
          round = i + 1
          units = Rounds.order(units_of(slots, round: round), round: round, seed: seed)
          @store.add_round(round: round, order: units.map(&:key))
          run_round(units, round, warm)
        end
        precision_rounds(slots) do |wide, round|
          units = Rounds.order(wide, round: round, seed: seed)
          @store.add_round(round: round, order: units.map(&:key))
          run_round(units, round, warm)
        end
      ensure
        slots.each { |slot| slot.session&.stop }
      end

      # A unit whose scenario has no warm-up of its own to do before round 1
      # (Scenarios::Base#warm_up gave nothing: sustained's closed maximum warms
      # inside its measurement) keeps the plan's warm-up bound in round 1.
      def load_for(unit, round, load)
        return load unless @warmed && round == 1 && !@warmed.include?(unit.key)
        @plan.load
      end

      # {unit key => {variant => Results::WarmupRecord}}: each unit's warm-up,
      # recorded with its first measurement.
      def warm_all(units)
        units.each_with_object({}) do |unit, all|
          next if unit.slot.failed
          warmed = unit.slot.session.warm_up(@scenarios.fetch(unit.scenario).new, unit.workload)
          all[unit.key] = warmed.transform_values { |result| Results::WarmupRecord.of(result) } unless warmed.empty?
        rescue ServerRun::Failed => e
          fail_server(unit.slot, e.message, log_tail: e.log_tail)
        rescue Error => e
          fail_server(unit.slot, e.message)
        end
      end

      # Each warmed unit's round length (RoundSize: --round-requests at the
      # rate its warm-up reached), where that is longer than -d.
      def round_sizes(warmups)
        warmups.filter_map do |key, records|
          seconds = RoundSize.duration(duration: @plan.load.duration, requests: @plan.load.round_requests,
            rates: records.values.map(&:slices))
          [key, seconds] if seconds > @plan.load.duration
        end.to_h.freeze
      end

      def sized(unit, load)
        seconds = @sizes&.[](unit.key)
        (seconds && seconds > load.duration) ? load.with(duration: seconds.round(2)) : load
      end
    end
  end
end
