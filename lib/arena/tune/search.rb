# frozen_string_literal: true

module Arena
  module Tune
    # The search over one server's settings space, given something that
    # measures a configuration (`evaluate`: settings -> Candidate). It is
    # not a grid:
    #   1. start from the documented heuristic and measure it twice: the
    #      spread of the two is the noise (never below `min_noise`, nor below
    #      the sustained-rate search's own resolution);
    #   2. explore each setting by doubling (and halving) from the best so far,
    #      the others held, while each step gains more than the noise;
    #   3. refine one setting at a time: the midpoint between the best value
    #      and its nearest measured neighbours, while that gains more than the
    #      noise;
    #   4. go round again while anything improved.
    # A direction stops at the first step whose gain is within the noise, or
    # that does not qualify (over the memory budget, unsustained, failed).
    # It stops at `deadline` (a candidate is not begun unless the mean time of
    # one still fits), and an Interrupt (Ctrl-C) ends it with what it has.
    class Search
      Outcome = Struct.new(:candidates, :best, :runner_up, :noise, :stopped, keyword_init: true) do
        # The best's lead over the runner-up, relative to the runner-up.
        def margin = (best && runner_up&.score&.positive?) ? (best.score - runner_up.score) / runner_up.score : nil

        def within_noise? = !margin.nil? && margin <= noise

        def interrupted? = stopped == "interrupted"
      end

      class OutOfTime < StandardError; end

      MAX_ROUNDS = 3

      def initialize(space:, evaluate:, deadline: nil, clock: Clock, min_noise: 0.03, repeat_start: true)
        @space = space
        @evaluate = evaluate
        @deadline = deadline
        @clock = clock
        @min_noise = min_noise
        @repeat_start = repeat_start
        @measured = {} # settings => Candidate, in the order measured
        @noise = min_noise
      end

      def call
        stopped = begin
          explore
          "converged"
        rescue OutOfTime
          "time"
        rescue Interrupt
          "interrupted"
        end
        outcome(stopped)
      end

      private

      def explore
        start = @space.start
        @best = measure(start)
        measure_noise(start)
        return if @space.empty?
        MAX_ROUNDS.times do
          improved = false
          @space.dimensions.each { |d| improved |= double(d) }
          @space.dimensions.each { |d| improved |= refine(d) }
          break unless improved
        end
      end

      # The heuristic again: how far two measurements of one config differ here, now.
      def measure_noise(start)
        first = @measured[start]
        # The bisection's own step, when it found a rate, is a floor too.
        resolution = first.qualifies? ? first.resolution.to_f : 0.0
        if @repeat_start && first.qualifies?
          again = run(start)
          @measured[start] = first.repeated(again)
          @best = @measured[start]
        end
        @noise = [@min_noise, @measured[start].spread.to_f, resolution].max
      end

      def double(dim)
        improved = false
        %i[up down].each do |direction|
          loop do
            value = @best.settings[dim.name]
            step = dim.public_send(direction, value)
            break if step == value
            break unless try(@best.settings.merge(dim.name => step))
            improved = true
          end
        end
        improved
      end

      # Midpoints between the best value and its nearest measured neighbours
      # along this setting (the others as in the best).
      def refine(dim)
        improved = false
        loop do
          value = @best.settings[dim.name]
          along = @measured.keys.select { |s| s.except(dim.name) == @best.settings.except(dim.name) }.map { |s| s[dim.name] }
          below = along.select { |v| v < value }.max
          above = along.select { |v| v > value }.min
          mids = [below && dim.mid(below, value), above && dim.mid(value, above)].compact.uniq - along
          break if mids.empty?
          gained = mids.any? { |m| try(@best.settings.merge(dim.name => m)) }
          break unless gained
          improved = true
        end
        improved
      end

      # Measures settings (once: measured settings are remembered) and makes
      # them the best when they gain more than the noise. Returns whether they did.
      def try(settings)
        candidate = measure(settings)
        return false unless better?(candidate, @best)
        @best = candidate
        true
      end

      def better?(candidate, best)
        return false unless candidate.qualifies?
        return true unless best.qualifies?
        candidate.score > best.score * (1 + @noise)
      end

      def measure(settings)
        @measured[settings] ||= run(settings)
      end

      def run(settings)
        raise OutOfTime if out_of_time?
        @evaluate.call(settings)
      end

      # Begin a candidate only if one more of the usual length still fits.
      def out_of_time?
        return false if @deadline.nil? || @measured.empty?
        spent = @measured.values.map { |c| c.elapsed_s.to_f / c.rates.size }
        @clock.now + spent.sum / spent.size > @deadline
      end

      # The winner is the best qualifying candidate of all measured (ties to
      # less memory); the runner-up the next one.
      def outcome(stopped)
        ranked = @measured.values.select(&:qualifies?).sort_by { |c| [-c.score, c.pss_kb.to_i] }
        Outcome.new(candidates: @measured.values.freeze, best: ranked[0], runner_up: ranked[1], noise: @noise.round(4),
          stopped: stopped).freeze
      end
    end
  end
end
