# frozen_string_literal: true

module Arena
  module Report
    # The report side of a scenario: what the terminal, report.md and
    # report.html say and draw of its measurements. A scenario measures; its
    # side, a subclass under report/sides/ registered by the scenario's key,
    # words and draws, so scenarios/ need not know the report. A scenario
    # without a side of its own yet answers for itself: Side passes each
    # question through to it.
    class Side
      def self.registry = (@registry ||= {})

      # `side_of "sustained"` in a subclass: the side of that scenario.
      def self.side_of(key) = Side.registry[key] = self

      def self.of(scenario) = Side.registry.fetch(scenario.key, Side).new(scenario)

      attr_reader :scenario

      def initialize(scenario)
        @scenario = scenario
      end

      # A measurement's sentence (report.md, report.html); nil: none.
      def finding(m) = scenario.finding(m)

      # Rounds that are one answer, worded once (Scenarios::Base.round_key).
      def rounds_finding(ms) = scenario.rounds_finding(ms)

      # The terminal's [word, text] of a measurement; nil: the sentence, cut.
      def brief(m) = scenario.brief(m)

      def rounds_brief(ms) = scenario.rounds_brief(ms)

      # Moments to mark on a timeline chart besides the event: [{x:, label:}].
      def marks(m) = scenario.marks(m)

      # The event's name on its timeline chart (Report::TimelineSide).
      def event_label(m) = scenario.event_label(m)

      # Its own sections of report.md and report.html.
      def sections(document, colors:) = scenario.sections(document, colors: colors)

      # Sentences about the whole run, and their terminal lines [who, word, text].
      def overall_findings(document) = scenario.overall_findings(document)

      def overall_briefs(document, labels) = scenario.overall_briefs(document, labels)
    end
  end
end
