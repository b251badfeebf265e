# frozen_string_literal: true

module Arena
  module Verdicts
    # Which open-model levels a rate sweep runs, how many requests each needs,
    # and how long each lasts, from the closed maximum, the endpoint's unloaded
    # latency and the time left: a pure function, so a 1 s endpoint's plan is
    # checked without waiting for it.
    #
    # A level's p99 wants MIN_REQUESTS responses. On a fast endpoint that is a
    # fraction of a second; on a 1 s endpoint served by 2 workers (closed
    # maximum 2 req/s) the 10% level alone would need 1,000 s. So the plan
    # shrinks in this order until it fits the budget: fewer requests per level
    # (not under P99_REQUESTS while levels can still be dropped), then the
    # lowest levels (they cost the most time, 1/fraction, and say least about
    # the knee; the unloaded latency is known from the baseline), down to
    # 50%, 100% and 120%, then fewer requests again, down to FLOOR_REQUESTS. What
    # still does not fit is cut short when the time is spent, and the summary
    # says which levels were measured.
    module RatePlan
      Level = Struct.new(:fraction, :rate, :duration_s, keyword_init: true)

      class Level
        def label = "#{(fraction * 100).round}%"
      end

      Schedule = Struct.new(:levels, :min_requests, :dropped, :seconds, keyword_init: true)

      class Schedule
        def fits?(budget_s) = seconds <= budget_s
      end

      FRACTIONS = [0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.2].freeze
      MIN_REQUESTS = 200
      P99_REQUESTS = 100
      FLOOR_REQUESTS = 10
      # The levels given up first when time is short: the lowest (the most
      # expensive, 1/fraction) and then those between others, so that what
      # stays still spans the curve: 50%, 90%, 100%, 120%; at last 90%,
      # leaving 50%, 100% and 120%. 50% is never given up: a sweep of the
      # levels around the maximum alone answered "none sustained" for a server
      # that holds half its maximum easily (issue 35); a level well below the
      # maximum is what tells "no capacity" from "no headroom".
      DROP_ORDER = [0.1, 0.25, 0.75, 1.1, 0.9].freeze

      # extend self, not module_function: Verdicts::RatePlan.call then runs the methods mutant mutates
      extend self

      # closed_max_rps: the closed model's good req/s; unloaded_s: the
      # endpoint's unloaded p99 (s); budget_s: seconds left for the levels;
      # base_duration_s: the run's -d, the shortest a level lasts.
      def call(closed_max_rps:, unloaded_s:, budget_s:, base_duration_s:, fractions: FRACTIONS)
        fractions = distinct(fractions, closed_max_rps)
        overhead = overhead_s(unloaded_s)
        best = nil
        (0..DROP_ORDER.size).each do |drop|
          kept = fractions - DROP_ORDER.first(drop)
          next if drop.positive? && kept.size == (fractions - DROP_ORDER.first(drop - 1)).size
          requests = most_requests(kept, closed_max_rps, overhead, budget_s, base_duration_s)
          best = plan(kept, closed_max_rps, requests || FLOOR_REQUESTS, overhead, base_duration_s, fractions - kept)
          break if requests && requests >= P99_REQUESTS
        end
        best
      end

      # Three significant digits: 0.2 req/s stays 0.2, 12,345 becomes 12,300.
      def rate_at(closed_max_rps, fraction)
        rate = closed_max_rps * fraction
        return 0.0 unless rate.positive?
        rate.round(2 - Math.log10(rate).floor).to_f
      end

      # Fractions whose rates would be the same (a closed maximum of 0.004
      # req/s) are one level, not two.
      def distinct(fractions, closed_max_rps) = fractions.uniq { |f| rate_at(closed_max_rps, f) }

      # Before each level: the settle probe answers at about the unloaded
      # latency; after it: the last requests in flight drain.
      # (measured on a 1 s endpoint: settle 1.2-1.6 s, drain about 1 s).
      def overhead_s(unloaded_s) = 2.5 * unloaded_s + 0.5

      def duration_s(rate, requests, base_duration_s) = [base_duration_s.to_f, (requests / rate).ceil.to_f].max

      def seconds(fractions, max, requests, overhead, base_duration_s)
        fractions.sum { |f| duration_s(rate_at(max, f), requests, base_duration_s) + overhead }
      end

      # The most requests per level (FLOOR_REQUESTS..MIN_REQUESTS) whose plan
      # fits the budget, or nil when not even the floor does.
      def most_requests(fractions, max, overhead, budget_s, base_duration_s)
        return nil if seconds(fractions, max, FLOOR_REQUESTS, overhead, base_duration_s) > budget_s
        low = FLOOR_REQUESTS
        high = MIN_REQUESTS
        while low < high
          mid = (low + high + 1) / 2
          if seconds(fractions, max, mid, overhead, base_duration_s) <= budget_s
            low = mid
          else
            high = mid - 1
          end
        end
        low
      end

      def plan(fractions, max, requests, overhead, base_duration_s, dropped)
        levels = fractions.map do |f|
          rate = rate_at(max, f)
          Level.new(fraction: f, rate: rate, duration_s: duration_s(rate, requests, base_duration_s)).freeze
        end
        Schedule.new(levels: levels.freeze, min_requests: requests, dropped: dropped.freeze,
          seconds: seconds(fractions, max, requests, overhead, base_duration_s)).freeze
      end
    end
  end
end
