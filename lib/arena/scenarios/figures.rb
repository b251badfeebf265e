# frozen_string_literal: true

module Arena
  module Scenarios
    # A scenario's figures as a typed record, declared in the scenario's own
    # file beside the code that writes them into a measurement's extra:
    #
    #   figures :sustained_rps, :closed_max_rps, :p99_ms
    #
    # defines Scenario::Figures (a keyword Struct) and Scenario.figures_of(m),
    # the frozen record of one of its measurements (nil for another
    # scenario's). Recommendations, tune and charts ask the scenario for its
    # record; no one else reads its keys.
    module FigureRecord
      def figures(*names) = const_set(:Figures, Struct.new(*names, keyword_init: true))

      def owns?(measurement) = measurement.scenario == key

      def figures_of(measurement)
        return nil unless owns?(measurement)
        extra = measurement.extra
        self::Figures.new(**self::Figures.members.to_h { |name| [name, extra[name.to_s]] }).freeze
      end

      # The measurements of a document that are this scenario's.
      def measured_in(document) = document.measured.select { |m| owns?(m) }
    end
  end
end
