# frozen_string_literal: true

require_relative "side"
require_relative "timeline_charts"

module Arena
  module Report
    # The side of a scenario drawn on timelines (Report::TimelineCharts): one
    # chart per measurement, its event marked and named by event_label.
    class TimelineSide < Side
      def sections(document, colors:) = TimelineCharts.new(document, scenario: scenario, colors: colors).sections
    end
  end
end
