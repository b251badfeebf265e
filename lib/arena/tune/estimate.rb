# frozen_string_literal: true

module Arena
  module Tune
    # How long a tune needs, said before it starts (pure: figures in,
    # figures out). A candidate is a boot, the sustained scenario's closed
    # maximum and at most STEPS open levels (each warm-up + duration), and a
    # little settling. The least search of a server (lib/arena/tune/search.rb)
    # is its start measured `rounds` times, one step up and one down along
    # each setting, and, inside an envelope, the winner once more without it.
    # A tune in an envelope with a 90 s budget stopped with 3 of Puma's 8
    # candidates measured (issue 21): the default budget now covers twice
    # the least search of every server, and a smaller --max-time is said.
    module Estimate
      # Seconds a boot takes here before a candidate's load: a Rails app
      # boots in 7-20 s on this 2-core machine, a plain Rack app in 1-3 s.
      BOOT_S = {rails: 15.0, rack: 3.0}.freeze
      OVERHEAD_S = 2.0 # settling, probes, writing results
      DEFAULT_FLOOR_S = 600.0

      # The rounds of the head to head (HeadToHead), each a load of the
      # plan's duration per finalist, plus a second's settling.
      HEAD_TO_HEAD_ROUNDS = 5

      # One server's least search.
      Search = Struct.new(:server, :candidates, :seconds, keyword_init: true)

      module_function

      # warmup, duration: the load's (seconds); rails: whether the app boots Rails.
      def per_candidate_s(warmup:, duration:, rails:)
        (Scenarios::Sustained::STEPS + 1) * (warmup + duration) + BOOT_S.fetch(rails ? :rails : :rack) + OVERHEAD_S
      end

      # What the head to head of `finalists` needs, kept from the searches'
      # share of the time (none for a single finalist).
      def head_to_head_s(finalists, duration:)
        return 0.0 if finalists < 2
        finalists * HEAD_TO_HEAD_ROUNDS * (duration + 1.0)
      end

      # searches: [[server key, dimensions, in an envelope?], ...]
      def least(searches, per_candidate_s:, rounds: 3)
        searches.map do |server, dimensions, enveloped|
          count = rounds + 2 * dimensions + (enveloped ? 1 : 0)
          Search.new(server: server, candidates: count, seconds: (count * per_candidate_s).round).freeze
        end
      end

      # The budget when --max-time was not given: twice the least searches,
      # never under DEFAULT_FLOOR_S, in whole minutes.
      def default_budget(searches)
        total = searches.sum(&:seconds)
        ([2 * total, DEFAULT_FLOOR_S].max / 60.0).ceil * 60.0
      end

      # The line said before the search: how long it needs and whether the
      # budget holds it (the budget is shared by the servers in turn).
      def line(searches, budget_s:, per_candidate_s:, given:)
        total = searches.sum(&:seconds)
        needs = searches.map { |s| "#{s.server} #{s.candidates}" }.join(", ")
        text = "tune: a candidate takes about #{per_candidate_s.round} s here; the least search is #{needs} candidates, " \
          "about #{total} s"
        if budget_s < total
          fit = (budget_s / per_candidate_s).floor
          "#{text}; --max-time #{budget_s.round} fits about #{fit}: the search stops with the best so far " \
            "(give --max-time #{(2 * total / 60.0).ceil * 60} for a full search)"
        else
          "#{text}; budget #{budget_s.round} s#{" (default: twice that, at least #{DEFAULT_FLOOR_S.round} s)" unless given}"
        end
      end
    end
  end
end
