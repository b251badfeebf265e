# frozen_string_literal: true

require_relative "../stats/stats"
require_relative "../support/clock"

module Arena
  module Run
    # --precision PCT: more rounds of the units whose interval is still wider
    # than PCT (half-width against the median), until all are within it,
    # --max-time is spent, or MAX_ROUNDS; the store records which reached it.
    # It holds each unit's throughput figures (what its interval is made of).
    class Precision
      MAX_ROUNDS = 20

      def initialize(plan:, store:)
        @plan = plan
        @store = store
        @figures = {}
      end

      # A throughput measurement of the unit keyed `key`.
      def add(key, measurement) = (@figures[key] ||= []) << measurement

      # Yields the wide units and the round's number; the caller runs them
      # (servers kept up: in one shuffled order; restarted: a fresh start of
      # each server that has a wide unit, and only its wide units).
      # units: -> the units of the servers still in the run; spent: -> whether
      # the whole run's --max-time is spent.
      def rounds(units:, spent:)
        return unless @plan.precision
        started = Support::Clock.now
        round = @plan.rounds || 1
        loop do
          wide = units.call.select { |u| wide?(u) }
          break if wide.empty? || round >= MAX_ROUNDS || Support::Clock.now - started > @plan.load.max_time || spent.call
          round += 1
          yield wide, round
        end
        all = units.call.select { |u| @figures.key?(u.key) }
        @store.add_precision(target_pct: @plan.precision, rounds: round,
          reached: all.reject { |u| wide?(u) }.map(&:key), missed: all.select { |u| wide?(u) }.to_h { |u| [u.key, half_width(u)] })
      end

      private

      def wide?(unit)
        return false unless @figures.key?(unit.key)
        width = half_width(unit)
        width.nil? || width > @plan.precision
      end

      def half_width(unit)
        all = @figures[unit.key]
        clean = all.reject(&:noisy?)
        Stats.interval((clean.empty? ? all : clean).map(&:good_rps)).half_width_pct&.round(2)
      end
    end
  end
end
