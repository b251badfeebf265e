# frozen_string_literal: true

require_relative "confirmation"
require_relative "search"
require_relative "trial"

module Arena
  module Tune
    # How long a tune needs, said before it starts (pure: figures in,
    # figures out). A candidate's first look is a boot, the sustained
    # scenario's closed maximum and at most Trial::LOOK_STEPS open levels (each warm-up +
    # duration), and a little settling. The least search of a server
    # (lib/arena/tune/search.rb) looks at its start, the model's prediction,
    # and one step up and one down along each setting, and, inside an
    # envelope, the winner once more without it. The default budget is 10
    # minutes whatever that needs (the answer in one command should come
    # quickly): a budget under the least search is said, with what fits.
    module Estimate
      # Seconds a boot takes here before a candidate's load: a Rails app
      # boots in 7-20 s on this 2-core machine, a plain Rack app in 1-3 s.
      BOOT_S = {rails: 15.0, rack: 3.0}.freeze
      OVERHEAD_S = 2.0 # settling, probes, writing results

      # The rounds of the head to head (HeadToHead), each a load of the
      # plan's duration per finalist, plus a second's settling.
      HEAD_TO_HEAD_ROUNDS = 5

      # One server's least search.
      Search = Struct.new(:server, :candidates, :seconds, keyword_init: true)

      module_function

      # Requests a load holds at least when the app is slow, and the longest
      # a load grows to hold them: 40 requests move a figure in steps of 2.5%.
      LOAD_REQUESTS = 200
      LONGEST_LOAD_S = 20.0

      # warmup, duration: the load's (seconds); rails: whether the app boots
      # Rails (its boot guessed), or boot_s: the app's measured boot; level_s:
      # an open level's length (at least the duration); steps: its open
      # levels (a first look's at most, else LEAST_LEVELS).
      def per_candidate_s(warmup:, duration:, rails: false, boot_s: nil, level_s: duration, steps: Trial::LOOK_STEPS)
        boot = boot_s || BOOT_S.fetch(rails ? :rails : :rack)
        (warmup + duration) + steps * (warmup + [level_s, duration].max) + boot + OVERHEAD_S
      end

      # The fewest open levels from which a look says whether a config holds
      # a rate: 90% of its closed maximum, then 45% when that missed. A
      # single-server share of one level read every server unsustained on a
      # 70 ms-a-request app (90% of a core queues past 3x the unloaded p99).
      LEAST_LEVELS = 2

      # A load's duration that holds LOAD_REQUESTS at `rps` (the most the
      # server's cores serve, from the app's pace), never under `default`.
      def duration_for(rps, default:)
        return default unless rps.to_f.positive?
        (LOAD_REQUESTS / rps.to_f).clamp(default, [LONGEST_LOAD_S, default].max).round(1)
      end

      # What a whole tune needs, in seconds: every server's start looked at
      # (looks: how many), the least search of the `searched` servers (the
      # leaders and the baseline's server: Search structs, their start
      # already looked at), the head to head, and the confirmation's rounds.
      def whole_s(looks:, searched:, per_candidate_s:, head_to_head_s:, confirmation_s:)
        looks * per_candidate_s + searched.sum { |s| s.seconds - per_candidate_s } + head_to_head_s + confirmation_s
      end

      # A challenger's duel with the best config (Search#duel): at most
      # Search::LOOKS.last paired rounds, a load of `duration` and a second's
      # settling for each of the two. Counted at the most: on a noisy
      # machine most duels ran all their rounds (a slow app's searches, planned
      # on their looks alone, stopped at the time limit after 2 of 4 configs).
      def duel_s(duration:) = Tune::Search::LOOKS.last * 2 * (duration + 1.0)

      # The --max-time said is the need and DRIFT more: a tune run again with
      # it measures the app again, and this machine's pace drifts between
      # runs (a Rails app read 59.0 ms a request, then 62.4 ms, and the
      # --max-time said the first time fell 4% short of the second's need).
      DRIFT = 1.1

      # The lines said before a tune starts when its budget is under what the
      # whole tune needs: how long it needs, and the --max-time that holds it.
      def short_lines(need_s, budget_s:)
        return [] if need_s <= budget_s
        minutes = (need_s / 60.0).ceil
        ["tune: this app needs about #{minutes} min for every server's start, the leaders' and your",
          "  server's search and #{Confirmation::MIN_ROUNDS} confirmation rounds (--max-time #{(need_s * DRIFT / 60.0).ceil * 60}); " \
          "in #{(budget_s / 60.0).round(1)} min some are cut short"]
      end

      # What the head to head of `finalists` needs, kept from the searches'
      # share of the time (none for a single finalist).
      def head_to_head_s(finalists, duration:)
        return 0.0 if finalists < 2
        finalists * HEAD_TO_HEAD_ROUNDS * (duration + 1.0)
      end

      # searches: [[server key, dimensions, in an envelope?], ...]
      # duel_s: a challenger's duel (.duel_s), for each candidate after the start.
      def least(searches, per_candidate_s:, duel_s: 0.0)
        searches.map do |server, dimensions, enveloped|
          count = 2 + 2 * dimensions + (enveloped ? 1 : 0)
          Search.new(server: server, candidates: count, seconds: (count * per_candidate_s + (count - 1) * duel_s).round).freeze
        end
      end

      # The lines said before the search, each under 100 columns: what a
      # candidate and the least search of every server take, and whether
      # the budget holds them (the budget is shared by the servers in turn).
      def lines(searches, budget_s:, per_candidate_s:, given:)
        total = searches.sum(&:seconds)
        needs = "tune: about #{per_candidate_s.round} s a candidate; the least search of every server: " \
          "#{searches.sum(&:candidates)} candidates, #{total} s"
        left = "tune: #{budget_s.round} s for the search#{" (--max-time)" if given}"
        return [needs, "#{left}: it fits"] if budget_s >= total
        [needs, "#{left} fits about #{(budget_s * searches.sum(&:candidates) / total).floor}: searches stop early " \
          "(--max-time #{(total / 60.0).ceil * 60} fits all)"]
      end
    end
  end
end
