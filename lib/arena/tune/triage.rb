# frozen_string_literal: true

module Arena
  module Tune
    # Where ten minutes go when every installed server is tuned: each
    # server's documented start is looked at first, then the leaders earn
    # the time left. A pure rule on values (first looks in, keys out).
    module Triage
      # The most servers searched beyond their start, and the most that meet head to head.
      SEARCHED = 3
      FINALISTS = 4
      # A server whose start served less than this share of the best start's is not searched.
      WITHIN = 0.5

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # looks: {server key => its start's Candidate (nil: not looked at)} ->
      # the keys to search: the best qualifying starts within WITHIN of the
      # leader's, at most SEARCHED, best first; and `yours` (the server the
      # app runs today) whenever its start qualifies, last: whether to stay
      # on it is the first question a team asks.
      def searched(looks, yours: nil)
        ok = looks.select { |_, c| c&.qualifies? }
        lead = ok.values.map(&:score).max
        leaders = ok.select { |_, c| c.score >= WITHIN * lead }.max_by(SEARCHED) { |_, c| c.score }.map(&:first)
        (ok.key?(yours) && !leaders.include?(yours)) ? leaders + [yours] : leaders
      end

      # Why a server with a qualifying start was not searched.
      def why_not(key, looks)
        c = looks.fetch(key)
        lead = looks.values.compact.select(&:qualifies?).map(&:score).max
        return "its start served #{(100 * c.score / lead).round}% of the best start's" if c.score < WITHIN * lead
        "the #{SEARCHED} best starts were searched"
      end

      # bests: {server key => its best Candidate} -> [keys in the head to head, keys left out], by score.
      def finalists(bests)
        ranked = bests.sort_by { |_, c| -c.score }.map(&:first)
        [ranked.first(FINALISTS), ranked.drop(FINALISTS)]
      end
    end
  end
end
