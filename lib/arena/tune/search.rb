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
    #
    # With `rounds:` 3 (what `arena tune` uses) a candidate is judged by the
    # same rule as `arena run`'s figures: one that leads the best is measured
    # again until both have 3 figures, and it becomes the best only when
    # Welch's t on their log figures (Stats.difference, 5%) says the lead is
    # real; the noise is then each candidate's own spread, not the start's.
    # Unpaired on purpose: a candidate's figures are taken one after another,
    # not in rounds beside the best's, so no pair of figures shares the
    # machine's minute; the head-to-head of the winners (interleaved rounds)
    # is where Stats.paired decides.
    # It stops at `deadline` (a candidate is not begun unless the mean time of
    # one still fits), and an Interrupt (Ctrl-C) ends it with what it has.
    class Search
      Outcome = Struct.new(:candidates, :best, :runner_up, :noise, :stopped, keyword_init: true)

      class Outcome
        # The best's lead over the runner-up, relative to the runner-up.
        def margin = ((best.score - runner_up.score) / runner_up.score if best && runner_up&.score&.positive?)

        def within_noise?
          return !difference.significant? if difference&.measured?
          !margin.nil? && margin <= noise
        end

        # The best against the runner-up by the significance test, when both
        # have 3 figures or more (nil otherwise).
        def difference
          return nil unless best && runner_up && best.rates.size >= 3 && runner_up.rates.size >= 3
          Stats.difference(runner_up.rates, best.rates, names: [runner_up.label || "runner-up", best.label || "best"])
        end

        def interrupted? = stopped == "interrupted"
      end

      class OutOfTime < StandardError; end

      MAX_ROUNDS = 3

      def initialize(space:, evaluate:, deadline: nil, clock: Clock, min_noise: 0.03, repeat_start: true, rounds: 1)
        @space = space
        @evaluate = evaluate
        @deadline = deadline
        @clock = clock
        @min_noise = min_noise
        @repeat_start = repeat_start
        @measured = {} # settings => Candidate, in the order measured
        @noise = min_noise
        @rounds = rounds
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

      # The heuristic again: how far two measurements of one config differ
      # here, now. A start that did not qualify, or failed a repeat, measures
      # no noise (its spread with a 0 would be 200%): the floor stands.
      def measure_noise(start)
        first = @measured[start]
        @best = confirmed(first, [@rounds, 2].max) if @repeat_start
        return unless @best.qualifies?
        # The bisection's own step is a floor too.
        @noise = [@min_noise, @best.spread.to_f, first.resolution.to_f].max
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
          # below < value < above: the midpoints differ unless both are the value, which is measured.
          mids = [below && dim.mid(below, value), above && dim.mid(value, above)].compact - along
          break unless mids.any? { |m| try(@best.settings.merge(dim.name => m)) }
          improved = true
        end
        improved
      end

      # Measures settings (once: measured settings are remembered) and makes
      # them the best when they gain more than the noise. Returns whether they did.
      def try(settings)
        candidate = measure(settings)
        return false unless better?(candidate, @best)
        @best = @measured[settings]
        true
      end

      # A candidate that does not qualify scores 0 (Candidate#score), and one
      # that does scores more: no guard on either side is needed.
      def better?(candidate, best)
        return candidate.score > best.score * (1 + @noise) if @rounds < 3
        return false unless candidate.score > best.score
        # Both to their rounds (a best that does not qualify is not measured
        # again: after a failed start, the first candidate that qualifies is
        # measured to its rounds, as the start would have been).
        a = confirmed(best)
        b = confirmed(candidate)
        @best = a
        return false unless b.qualifies?
        # The best failed when measured again, or never qualified: it no longer stands.
        return true unless a.qualifies?
        Stats.difference(a.rates, b.rates).then { |d| d.significant? && d.estimate_pct.positive? }
      end

      # The candidate measured again until it has `rounds` figures, or until
      # a measurement does not qualify (then it does not either).
      def confirmed(candidate, rounds = @rounds)
        c = candidate
        # Kept after each repeat: when time runs out before the next one
        # (OutOfTime), the repeats already measured stay in tune.json.
        c = @measured[c.settings] = c.repeated(run(c.settings)) while c.qualifies? && c.rates.size < rounds
        @measured[c.settings] = c
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
        # With rounds, the best is the one the test accepted, not a lucky single figure.
        if @rounds >= 3 && @best&.qualifies?
          best = @measured[@best.settings]
          ranked = [best, *ranked.reject { |c| c.settings == best.settings }]
        end
        Outcome.new(candidates: @measured.values.freeze, best: ranked[0], runner_up: ranked[1], noise: @noise.round(4),
          stopped: stopped).freeze
      end
    end
  end
end
