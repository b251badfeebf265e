# frozen_string_literal: true

require_relative "../stats/stats"
require_relative "capacity"

module Arena
  module Tune
    # The search over one server's settings space, model first. `evaluate`
    # measures configs two ways: `call(settings)` is a first look (a
    # Candidate: does it start, hold a rate within the SLO and the memory
    # budget, and its CPU per request and time a request holds a slot);
    # `round(settings)` one more figure of a config for a paired comparison
    # (where it has no `round`, a first look's score stands in).
    #
    #   1. Look at the documented start. Its CPU per request and its time in
    #      service (working + waiting) predict, by Little's law, the slots
    #      that keep the cores busy (Capacity.saturating_slots); the space
    #      turns them into settings (Space#predicted). The prediction meets
    #      the start head to head.
    #   2. Verify around the best: along each setting, double and halve
    #      while that wins (or ties once); then the midpoints between the
    #      best and its nearest measured neighbours; again while anything won.
    #
    # Head to head is a duel in interleaved rounds: each round measures both
    # configs once, in a random order, so the two figures of a round sit
    # next to each other in time and the machine's drift cancels in their
    # ratio (Stats.paired). A duel ends when the ratios say one is ahead, or
    # that the two are equivalent within ±band_pct, or after max_rounds; the
    # challenger takes over when it is significantly ahead, or ahead on the
    # estimate after all the rounds (Duel#won?), never when equivalent.
    # Each look of a duel tests at `level` over twice the looks' count (the
    # looks are several; the error rate is the duel's), so two identical
    # configs are declared apart in under `level` of searches
    # (test/unit/tune/search_hits_test.rb). A challenger whose first look
    # is far below the best's (the screen: 3 x sqrt(2) x the noise, at
    # least 25%: unpaired looks carry the machine's drift) is not worth a duel.
    #
    # It stops at `deadline` (nothing is begun unless the mean time of one
    # more of its kind still fits), after a second config that failed to
    # start or verify, and an Interrupt (Ctrl-C) ends it with what it has.
    class Search
      # One head-to-head: b (the challenger) against a, round by round.
      Duel = Struct.new(:a, :b, :a_rates, :b_rates, :level, :band_pct, :complete, keyword_init: true) do
        def involves?(settings) = [a, b].include?(settings)

        def opponent(settings) = (a == settings) ? b : a

        def rates(settings) = (a == settings) ? a_rates : b_rates

        # `of` against `against`, on the rounds both ran.
        def difference(of, against, names: %w[runner-up best])
          n = [a_rates.size, b_rates.size].min
          Stats.paired(rates(against).first(n), rates(of).first(n), level: level, names: names, band_pct: band_pct)
        end

        def log_ratios = a_rates.zip(b_rates).select { |x, y| x.to_f.positive? && y.to_f.positive? }.map { |x, y| Math.log(y / x) }

        def lost? = difference(b, a).then { |d| d.significant? && !d.equivalent? && d.estimate_pct.negative? }

        # The challenger takes over when it is significantly ahead, or, the
        # duel run to its end undecided, ahead on the estimate: the aim is
        # the best config within a few percent, and choosing the higher
        # estimate is right far more often than waiting for a test that
        # cannot decide a 5% gap in noise of 5% (a claim that the two
        # differ is still the test's alone: Outcome#within_noise?).
        def won?
          d = difference(b, a)
          return false if d.equivalent? || !d.measured?
          d.significant? ? d.estimate_pct.positive? : (complete && d.estimate_pct.positive?)
        end
      end

      Outcome = Struct.new(:candidates, :best, :runner_up, :noise, :stopped, :duels, :model, keyword_init: true)

      # An outcome's `stopped` for a server no look reached before the searches' time ran out.
      NOT_LOOKED = "not looked at"

      class Outcome
        # The best's lead over the runner-up, relative to the runner-up: the
        # paired estimate where they met head to head, else their first looks.
        def margin
          return nil unless best && runner_up&.score&.positive?
          d = difference
          d&.measured? ? d.estimate_pct / 100.0 : (best.score - runner_up.score) / runner_up.score
        end

        def within_noise?
          d = difference
          return !d.significant? || d.equivalent? if d&.measured?
          # Never met: two first looks, one figure each, unpaired, tell apart
          # only a gap twice what the search declines to duel (Search#screen).
          !margin.nil? && margin <= 2 * Search.screen(noise)
        end

        # The best against the runner-up from the rounds of their duel (nil
        # when they never met).
        def difference
          duel = best && runner_up && (duels || []).reverse.find { |d| d.involves?(best.settings) && d.opponent(best.settings) == runner_up.settings }
          duel&.difference(best.settings, runner_up.settings, names: [runner_up.label || "runner-up", best.label || "best"])
        end

        def interrupted? = stopped == "interrupted"
      end

      class OutOfTime < StandardError; end

      # A server that failed to start or verify this many times is not
      # searched further (a segfault at boot fails every config alike).
      class Failing < StandardError; end

      FAILURES = 2

      MAX_PASSES = 3
      MIN_ROUNDS = 3
      # The rounds after which a duel looks at its ratios.
      LOOKS = [3, 4, 6, 8].freeze
      # The least a first look may trail the best's and still earn a duel.
      SCREEN = 0.25

      # cores: the server's cores (the model's CPU ceiling); rng: the duels' orders.
      def initialize(space:, evaluate:, cores: 1, deadline: nil, clock: Support::Clock, rng: Random.new, min_noise: 0.03,
        band_pct: 3.0, level: 0.05, max_rounds: LOOKS.last, measured: {}, round_s: nil)
        @space = space
        @evaluate = evaluate
        @cores = cores
        @deadline = deadline
        @clock = clock
        @rng = rng
        @min_noise = min_noise
        @band_pct = band_pct
        @level = level
        @max_rounds = max_rounds
        @measured = measured.dup # settings => first look, in the order measured (given: looked at before)
        @duels = []
        # Seconds a look and a round took; round_s: what a round is expected to take before one is measured.
        @spent = {look: @measured.values.map { |c| c.elapsed_s.to_f }, round: []}
        @round_s = round_s
      end

      # How far a first look may trail the best's and still earn a duel.
      def self.screen(noise) = [SCREEN, 3 * Math.sqrt(2) * noise].max

      def call
        stopped = begin
          explore
          "converged"
        rescue OutOfTime
          "time"
        rescue Failing
          "failed"
        rescue Interrupt
          "interrupted"
        end
        outcome(stopped)
      end

      private

      def explore
        @best = @measured[@space.start] || look(@space.start)
        return if @space.empty?
        slots = @best.qualifies? ? Capacity.saturating_slots(@best, cores: @cores) : nil
        if slots
          predicted = @space.predicted(slots: slots, cores: @cores)
          @model = {slots: slots.round(1), settings: predicted}
          challenge(predicted)
        end
        MAX_PASSES.times do
          improved = false
          @space.dimensions.each { |d| improved |= climb(d) }
          @space.dimensions.each { |d| improved |= refine(d) }
          break unless improved
        end
      end

      # Double (and halve) the setting from the best while each step wins or
      # ties once: past a tie the next step may still win (a flat stretch,
      # then a rise); two ties in a row, or a loss (significantly behind, far below on its first look, or
      # not qualifying) ends the direction.
      def climb(dim)
        improved = false
        %i[up down].each do |direction|
          probe = @best.settings[dim.name]
          ties = 0
          loop do
            step = dim.public_send(direction, probe)
            break if step == probe
            probe = step
            verdict = challenge(@best.settings.merge(dim.name => step))
            improved = true if verdict == :won
            ties = (verdict == :tie) ? ties + 1 : 0
            break if verdict == :lost || ties > 1
          end
        end
        improved
      end

      # Midpoints between the best value and its nearest measured neighbours
      # along this setting (the others as in the best), while any is new:
      # the bracket halves each time, whether or not a midpoint won.
      def refine(dim)
        improved = false
        loop do
          value = @best.settings[dim.name]
          along = @measured.keys.select { |s| s.except(dim.name) == @best.settings.except(dim.name) }.map { |s| s[dim.name] }
          below = along.select { |v| v < value }.max
          above = along.select { |v| v > value }.min
          mids = [below && dim.mid(below, value), above && dim.mid(value, above)].compact.uniq - along
          break if mids.empty?
          mids.each { |m| improved = true if challenge(@best.settings.merge(dim.name => m)) == :won }
        end
        improved
      end

      # Settings against the best: a first look (once: a config is
      # challenged once), then a duel. :won when they took over, :lost when
      # they are behind, :tie otherwise (undecided, or equivalent).
      def challenge(settings)
        return :tie if @measured.key?(settings)
        candidate = look(settings)
        return :lost unless candidate.qualifies?
        unless @best.qualifies?
          @best = candidate
          return :won
        end
        return release(settings, :lost) if candidate.score < @best.score * (1 - screen)
        duel = duel(@best.settings, settings)
        if duel.won?
          release(@best.settings, nil)
          @best = candidate
          return :won
        end
        release(settings, duel.lost? ? :lost : :tie)
      end

      # A config the search has done with: a measurer that keeps configs up
      # (Trial) may stop it.
      def release(settings, verdict)
        @evaluate.release(settings) if @evaluate.respond_to?(:release)
        verdict
      end

      def screen = self.class.screen(noise)

      def duel(a, b)
        duel = Duel.new(a: a, b: b, a_rates: [], b_rates: [], level: @level / (2 * LOOKS.size), band_pct: @band_pct)
        @duels << duel
        @max_rounds.times do |i|
          order = (@rng.rand < 0.5) ? [a, b] : [b, a]
          order.each { |s| duel.rates(s) << round(s) }
          break if [duel.a_rates.last, duel.b_rates.last].any? { |x| !x.to_f.positive? }
          next unless LOOKS.include?(i + 1) || i + 1 == @max_rounds
          d = duel.difference(b, a)
          break if d.significant? || d.equivalent?
        end
        duel.complete = true
        duel
      end

      def look(settings)
        candidate = @measured[settings] = timed(:look) { @evaluate.call(settings) }
        raise Failing if @measured.values.count { |c| c.status == "failed" } >= FAILURES
        candidate
      end

      def round(settings)
        timed(:round) { @evaluate.respond_to?(:round) ? @evaluate.round(settings) : @evaluate.call(settings).score }
      end

      def timed(kind)
        raise OutOfTime if out_of_time?(kind)
        started = @clock.now
        yield.tap { @spent[kind] << @clock.now - started }
      end

      # Begin a look or a round only if one more of its kind still fits (a
      # round before any was measured takes round_s, else a look's time).
      def out_of_time?(kind)
        return false if @deadline.nil?
        spent = @spent[kind]
        spent = [@round_s] if spent.empty? && kind == :round && @round_s
        spent = @spent[:look] if spent.empty?
        return false if spent.empty?
        @clock.now + spent.sum / spent.size > @deadline
      end

      # How far one measurement strays: the spread of the duels' log ratios
      # over the square root of 2 (each ratio holds two measurements' noise),
      # never below min_noise.
      def noise
        groups = @duels.map { |d| d.log_ratios }.select { |r| r.size >= 2 }
        df = groups.sum { |r| r.size - 1 }
        return @min_noise if df < 2
        ss = groups.sum { |r| r.sum { |x| (x - r.sum / r.size)**2 } }
        [Math.sqrt(ss / df / 2), @min_noise].max
      end

      # The best is the config that won its duels (or the first to qualify);
      # the runner-up the one that came closest to it head to head, else the
      # best first look of the rest.
      def outcome(stopped)
        best = @best&.qualifies? ? @best : nil
        Outcome.new(candidates: @measured.values.freeze, best: best, runner_up: best && runner_up(best), noise: noise.round(4),
          stopped: stopped, duels: @duels.dup.freeze, model: @model).freeze
      end

      def runner_up(best)
        met = @duels.select { |d| d.involves?(best.settings) && [d.a_rates.size, d.b_rates.size].min >= MIN_ROUNDS }
        closest = met.max_by { |d| d.difference(d.opponent(best.settings), best.settings).estimate_pct.to_f }
        return @measured[closest.opponent(best.settings)] if closest
        @measured.values.select(&:qualifies?).reject { |c| c.settings == best.settings }.max_by { |c| [c.score, -c.pss_kb.to_i] }
      end
    end
  end
end
