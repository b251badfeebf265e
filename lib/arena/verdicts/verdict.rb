# frozen_string_literal: true

module Arena
  module Verdicts
    # What a rule made of figures says: a word people act on (passed, growing,
    # plateaued, knee, pick, recovered, stalled, ...) and the reason in words.
    # A rule that cannot reach a word says so: `Verdict.cannot_judge("p99 needs
    # 100 responses, head has 60")`. Rules that return one take frozen values and
    # start no process and read no clock, so they are unit-tested on synthetic data.
    Verdict = Struct.new(:word, :reason, keyword_init: true) do
      def self.of(word, reason = nil) = new(word: word.to_s, reason: reason).freeze

      def self.cannot_judge(reason) = of("cannot judge", reason)

      def judged? = word != "cannot judge"

      def to_s = (reason.nil? || reason.empty?) ? word : "#{word}: #{reason}"
    end
  end
end
