# frozen_string_literal: true

require_relative "../stats"

module Arena
  module Report
    # Which server to pick for a use case, from the figures of each run: a
    # pure rule on values (Candidate), returning the Verdict, the pick (or
    # nil) and the runner-up.
    #
    # - Goodput decides when the significance test (Stats.difference, over
    #   the runs of each) says the best is ahead of the runner-up. If the
    #   runner-up then answers significantly faster (p99), it is a trade-off
    #   and no server is picked: both are named.
    # - Where goodput is not distinguishable, a significantly lower p99 picks.
    # - Otherwise: "not distinguishable here", naming both (an exact tie, or
    #   one run each, is never broken by sort order).
    # - Figures flagged as held down by something else (loader-bound: the
    #   engine's core was busy; did-not-settle: the machine was busy before)
    #   can only understate a server: a flagged pick stands with the flag
    #   said; a flagged runner-up cannot be judged beaten.
    module Pick
      DOWNWARD = %w[loader-bound did-not-settle].freeze
      LEVEL = 0.05

      # rps: goodput of each run; p99: p99 of each run (empty where too few
      # responses); flags: the runs' flags.
      Candidate = Struct.new(:name, :rps, :p99, :flags, keyword_init: true)

      class Candidate
        def median_rps = Stats.median(rps) || 0.0

        def held_down = flags & DOWNWARD
      end

      Result = Struct.new(:verdict, :pick, :runner_up, keyword_init: true)

      # extend self, not module_function: Name.call then runs the methods mutant mutates
      extend self

      def call(candidates, level: LEVEL)
        ranked = candidates.group_by(&:name).map { |_, same| same.max_by(&:median_rps) }.sort_by { |c| -c.median_rps }
        best, second = ranked
        return Result.new(verdict: Verdict.cannot_judge("no server measured")).freeze unless best
        return Result.new(verdict: Verdict.of("pick", "the only server measured#{caveat(best)}"), pick: best).freeze unless second
        if second.held_down.any?
          return Result.new(verdict: Verdict.cannot_judge("runner-up #{second.name} is #{second.held_down.join(" and ")}: " \
            "its figure may not be the server's"), runner_up: second).freeze
        end
        goodput = Stats.difference(second.rps, best.rps, level: level, names: [second.name, best.name])
        latency = (best.p99.empty? || second.p99.empty?) ? nil : Stats.difference(second.p99, best.p99, level: level, names: [second.name, best.name])
        if goodput.significant?
          if latency&.significant? && latency.estimate_pct.positive?
            return Result.new(verdict: Verdict.of("trade-off", "#{best.name} serves more (#{goodput.reason}); #{second.name} " \
              "answers faster (p99: #{latency.reason})"), runner_up: second).freeze
          end
          return Result.new(verdict: Verdict.of("pick", "goodput: #{goodput.reason}#{caveat(best)}"), pick: best, runner_up: second).freeze
        end
        if latency&.significant?
          fast, slow = latency.estimate_pct.negative? ? [best, second] : [second, best]
          return Result.new(verdict: Verdict.of("pick", "goodput #{goodput.reason}; p99 lower: #{latency.reason}#{caveat(fast)}"),
            pick: fast, runner_up: slow).freeze
        end
        Result.new(verdict: Verdict.of("not distinguishable", "#{best.name} and #{second.name} here: " \
          "#{goodput.reason.delete_prefix("not distinguishable here: ")}"),
          runner_up: second).freeze
      end

      def caveat(c) = c.held_down.any? ? " (#{c.name} is #{c.held_down.join(" and ")}: it may serve more still)" : ""
    end
  end
end
