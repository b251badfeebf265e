# frozen_string_literal: true

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

      # warmup, duration: the load's (seconds); rails: whether the app boots Rails.
      def per_candidate_s(warmup:, duration:, rails:)
        (Trial::LOOK_STEPS + 1) * (warmup + duration) + BOOT_S.fetch(rails ? :rails : :rack) + OVERHEAD_S
      end

      # What the head to head of `finalists` needs, kept from the searches'
      # share of the time (none for a single finalist).
      def head_to_head_s(finalists, duration:)
        return 0.0 if finalists < 2
        finalists * HEAD_TO_HEAD_ROUNDS * (duration + 1.0)
      end

      # searches: [[server key, dimensions, in an envelope?], ...]
      def least(searches, per_candidate_s:)
        searches.map do |server, dimensions, enveloped|
          count = 2 + 2 * dimensions + (enveloped ? 1 : 0)
          Search.new(server: server, candidates: count, seconds: (count * per_candidate_s).round).freeze
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
        [needs, "#{left} fits about #{(budget_s / per_candidate_s).floor}: searches stop early " \
          "(--max-time #{(total / 60.0).ceil * 60} fits all)"]
      end
    end
  end
end
