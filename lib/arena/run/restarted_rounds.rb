# frozen_string_literal: true

require_relative "../results/store"
require_relative "rounds"
require_relative "strategy"

module Arena
  module Run
    # The rounds with a fresh start of every server each round
    # (--between-rounds restart): servers in a shuffled order, one at a time,
    # a noisy measurement run again before its server stops. The other
    # Run::Strategy subclass the Runner chooses from (Runner.rounds_for).
    class RestartedRounds < Strategy
      def run_rounds(slots)
        records = Results::Store::FirstStart.new(@store)
        (1..rounds).each do |round|
          restarted_round(slots, round, store: records)
          break if stopped?
        end
        return if stopped?
        precision_rounds(slots) { |wide, round| restarted_round(slots, round, store: records, only: wide.map(&:key)) }
      end

      # Every round runs with the plan's load: each start warms up afresh.
      def load_for(_unit, _round) = @plan.load

      # No warm-up is recorded apart from its measurement.
      def warmup(_key, _variant) = nil

      private

      # One round with a fresh start of each server (in a shuffled order), its
      # units in a shuffled order; `only`: the keys to run (a precision round),
      # and a server with none of them is not started.
      def restarted_round(slots, round, store:, only: nil)
        order = []
        Run::Rounds.order(slots.reject(&:failed), round: round, seed: seed).each do |slot|
          units = only && units_of([slot]).select { |u| only.include?(u.key) }
          next if units && units.empty?
          begin
            start(slot, store: store)
            break if stopped?
            units = Run::Rounds.order(units || units_of([slot], round: round), round: round, seed: seed)
            order.concat(units.map(&:key))
            run_round(units, round)
          ensure
            slot.session&.stop
          end
        end
        @store.add_round(round: round, order: order)
      end
    end
  end
end
