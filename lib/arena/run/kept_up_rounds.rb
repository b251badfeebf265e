# frozen_string_literal: true

require_relative "../results/measurement"
require_relative "../scenarios/round_size"
require_relative "rounds"
require_relative "strategy"

module Arena
  module Run
    # The rounds with every server kept up (--between-rounds keep, the
    # default): each config started and verified once, every unit warmed up
    # once before round 1, the rounds run across all of them. One of the two
    # Run::Strategy subclasses the Runner chooses from (Runner.rounds_for).
    class KeptUpRounds < Strategy
      def initialize(**collaborators)
        super
        @warmups = {}
        @sizes = {}
      end

      def run_rounds(slots)
        slots.each do |slot|
          start(slot)
          break if stopped?
        end
        # Every unit warms up to a steady state once, before round 1 (in a
        # shuffled order of its own); the servers stay warm. No round's
        # measurement follows its own warm-up, so every round is measured the
        # same way (before, only round 1's did; it read 11% above rounds 2-3 in
        # two quiet arenas, and still reads high without it: see README).
        @warmups = warm_all(Run::Rounds.order(units_of(slots), round: 0, seed: seed))
        @sizes = round_sizes(@warmups)
        (1..rounds).each { |round| run(units_of(slots, round: round), round) }
        precision_rounds(slots) { |wide, round| run(wide, round) }
      ensure
        slots.each { |slot| slot.session&.stop }
      end

      # The load a unit runs with in a round: no warm-up bound (every unit
      # warmed before round 1), but a unit whose scenario has no warm-up of
      # its own to do before round 1 (Scenarios::Base#warm_up gave nothing:
      # sustained's closed maximum warms inside its measurement) keeps the
      # plan's bound in round 1; -d lengthened to the unit's round size.
      # -w lengthened to one turn of its closed loop (Scenarios::RoundSize.warmup).
      def load_for(unit, round)
        load = (round == 1 && !@warmups.key?(unit.key)) ? @plan.load : @plan.load.with(warmup_max: 0.0)
        seconds, warmup = @sizes[unit.key]
        load = load.with(duration: seconds.round(2)) if seconds && seconds > load.duration
        (warmup && warmup > load.warmup.to_f) ? load.with(warmup: warmup.round(2)) : load
      end

      # A unit's warm-up record for this variant, handed out once: it goes
      # with the unit's first measurement.
      def warmup(key, variant) = @warmups[key]&.delete(variant)

      private

      def run(units, round)
        units = Run::Rounds.order(units, round: round, seed: seed)
        @store.add_round(round: round, order: units.map(&:key))
        run_round(units, round)
      end

      # {unit key => {variant => Results::WarmupRecord}}: each unit's warm-up,
      # recorded with its first measurement.
      def warm_all(units)
        units.each_with_object({}) do |unit, all|
          next if unit.slot.failed
          warmed = guarded(unit.slot) { unit.slot.session.warm_up(@scenarios.fetch(unit.scenario).new, unit.workload) }
          all[unit.key] = warmed.transform_values { |result| Results::WarmupRecord.of(result) } unless warmed.nil? || warmed.empty?
        end
      end

      # Each warmed unit's round length (Scenarios::RoundSize: --round-requests at the
      # rate its warm-up reached) and the engine's warm-up before each round
      # (one turn of the closed loop at that rate), where either is longer
      # than -d or -w.
      def round_sizes(warmups)
        load = @plan.load
        warmups.filter_map do |key, records|
          rates = records.values.map(&:slices)
          seconds = Scenarios::RoundSize.duration(duration: load.duration, requests: load.round_requests, rates: rates)
          warmup = Scenarios::RoundSize.warmup(warmup: load.warmup.to_f, connections: load.connections, rates: rates,
            turn_s: records.values.filter_map(&:turn_s).max)
          [key, [seconds, warmup].freeze] if seconds > load.duration || warmup > load.warmup.to_f
        end.to_h.freeze
      end
    end
  end
end
