# frozen_string_literal: true

require_relative "../stats"
require_relative "verdict"

module Arena
  module Verdicts
    # Which server to pick for a use case, from the figures of each run: a
    # pure rule on values (Candidate), returning the Verdict, the pick (or
    # nil) and the runner-up.
    #
    # Each comparison is paired where both were measured in the same rounds
    # (Stats.by_rounds: the log ratio of figures adjacent in time, so the
    # machine's drift cancels), else Welch's t, said in the reason.
    #
    # - Goodput decides when the best is significantly ahead of the runner-up
    #   and not equivalent (within ±BAND_PCT). If the runner-up then answers
    #   significantly faster (p99), it is a trade-off and no server is picked
    #   (its p99 compared without the band: the reason says by how much, not
    #   "equivalent", where the difference is within it).
    # - Where goodput is equivalent, a second criterion decides, stated in
    #   the verdict: memory (PSS), then p99, each only when its whole
    #   interval lies beyond ±BAND_PCT (a difference shown larger than the
    #   band), each at half the level (two more tests must not add to the
    #   false picks between equal servers: testing p99 at the plain level
    #   whenever goodput was not distinguishable picked one of two equal
    #   servers 9.7% of the time against a nominal 5%).
    # - Otherwise "equivalent" or "not distinguishable", naming both: a tie
    #   is never broken by sort order.
    # - Figures flagged as held down by something else (loader-bound: the
    #   engine's core was busy; did-not-settle: the machine was busy before)
    #   can only understate a server: a flagged pick stands with the flag
    #   said; a flagged runner-up cannot be judged beaten.
    module Pick
      DOWNWARD = %w[loader-bound did-not-settle].freeze
      LEVEL = 0.05
      BAND_PCT = 3.0
      SECOND = {pss: "memory", p99: "p99"}.freeze

      # rps: goodput of each run; p99: p99 of each run (empty where too few
      # responses); pss: peak PSS (kB) of each run (empty where not sampled);
      # rounds: each run's round (nil: unknown, the runs are not paired);
      # flags: the runs' flags.
      Candidate = Struct.new(:name, :rps, :p99, :flags, :rounds, :pss, keyword_init: true)

      class Candidate
        def median_rps = Stats.median(rps) || 0.0

        def held_down = flags & DOWNWARD
      end

      Result = Struct.new(:verdict, :pick, :runner_up, keyword_init: true)

      # extend self, not module_function: Name.call then runs the methods mutant mutates
      extend self

      def call(candidates, level: LEVEL, band_pct: BAND_PCT)
        ranked = candidates.group_by(&:name).map { |_, same| same.max_by(&:median_rps) }.sort_by { |c| -c.median_rps }
        best, second = ranked
        return Result.new(verdict: Verdict.cannot_judge("no server measured")).freeze unless best
        return Result.new(verdict: Verdict.of("pick", "the only server measured#{caveat(best)}"), pick: best).freeze unless second
        if second.held_down.any?
          return Result.new(verdict: Verdict.cannot_judge("runner-up #{second.name} is #{second.held_down.join(" and ")}: " \
            "its figure may not be the server's"), runner_up: second).freeze
        end
        judge(best, second, level: level, band_pct: band_pct)
      end

      def judge(best, second, level:, band_pct:)
        goodput = versus(second, best, :rps, level, band_pct)
        if goodput.significant? && !goodput.equivalent?
          # p99 without the band: the runner-up answers faster by so much, never "equivalent within ±3%".
          latency = versus(second, best, :p99, level, nil)
          if latency.significant? && latency.estimate_pct.positive?
            return Result.new(verdict: Verdict.of("trade-off", "#{best.name} serves more (#{goodput.reason}); #{second.name} " \
              "answers faster (p99: #{latency.reason})"), runner_up: second).freeze
          end
          return Result.new(verdict: Verdict.of("pick", "goodput: #{goodput.reason}#{caveat(best)}"), pick: best, runner_up: second).freeze
        end
        if goodput.equivalent?
          %i[pss p99].each do |metric|
            diff = versus(second, best, metric, level / 2.0, band_pct)
            next unless beyond?(diff, band_pct)
            # The lower memory or p99 picks.
            low, high = diff.estimate_pct.negative? ? [best, second] : [second, best]
            return Result.new(verdict: Verdict.of("pick", "goodput #{goodput.reason}; #{SECOND.fetch(metric)} lower beyond " \
              "±#{format("%g", band_pct)}%: #{diff.reason}#{caveat(low)}"), pick: low, runner_up: high).freeze
          end
        end
        word = goodput.equivalent? ? "equivalent" : "not distinguishable"
        reason = goodput.reason.delete_prefix("not distinguishable here: ")
        reason += "; memory and p99 do not separate them" if goodput.equivalent?
        Result.new(verdict: Verdict.of(word, "#{best.name} and #{second.name} here: #{reason}"), runner_up: second).freeze
      end

      # b against a on one figure. A side without figures (no p99, no PSS
      # sampled) gives a difference not measured: never significant, no
      # interval, so it neither trades off nor picks.
      def versus(a, b, metric, level, band_pct)
        Stats.by_rounds(Array(a[metric]), Array(b[metric]), rounds_a: a.rounds, rounds_b: b.rounds, level: level,
          names: [a.name, b.name], band_pct: band_pct)
      end

      # A difference shown larger than the band: its whole interval outside ±band.
      def beyond?(diff, band_pct) = !diff.low_pct.nil? && (diff.low_pct > band_pct || diff.high_pct < -band_pct)

      # Only interpolated: nil reads as nothing.
      def caveat(c) = (" (#{c.name} is #{c.held_down.join(" and ")}: it may serve more still)" if c.held_down.any?)
    end
  end
end
