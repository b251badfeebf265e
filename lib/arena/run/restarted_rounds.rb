# frozen_string_literal: true

module Arena
  class Runner
    # The rounds with a fresh start of every server each round
    # (--between-rounds restart): servers in a shuffled order, one at a time,
    # a noisy measurement run again before its server stops. Runner runs
    # these or KeptUpRounds, as the plan says (Runner#keep_up?).
    module RestartedRounds
      private

      def rounds_restarted(slots)
        shared_records = StoreOnce.new(@store)
        (1..rounds).each do |round|
          restarted_round(slots, round, store: (round == 1) ? @store : shared_records)
          break if @root_not_found
        end
        return if @root_not_found
        precision_rounds(slots) { |wide, round| restarted_round(slots, round, store: shared_records, only: wide.map(&:key)) }
      end

      # One round with a fresh start of each server (in a shuffled order), its
      # units in a shuffled order; `only`: the keys to run (a precision round),
      # and a server with none of them is not started.
      def restarted_round(slots, round, store:, only: nil)
        order = []
        Rounds.order(slots.reject(&:failed), round: round, seed: seed).each do |slot|
          units = only && units_of([slot]).select { |u| only.include?(u.key) }
          next if units && units.empty?
          begin
            start(slot, store: store)
            break if @root_not_found
            units = Rounds.order(units || units_of([slot], round: round), round: round, seed: seed)
            order.concat(units.map(&:key))
            run_round(units, round, @plan.load)
          ensure
            slot.session&.stop
          end
        end
        @store.add_round(round: round, order: order)
      end

      # The store as a restarted round's session sees it: the server was
      # recorded when it first started; a later start adds no second record
      # (a failure still is).
      class StoreOnce
        def initialize(store) = @store = store

        def add_server(record) = (record["status"] == "failed") ? @store.add_server(record) : nil

        def add_measurement(measurement) = @store.add_measurement(measurement)
      end
    end
  end
end
