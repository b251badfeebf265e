# frozen_string_literal: true

# The report renderers beyond the terminal table: Markdown, one
# self-contained HTML page with SVG charts, recommendations, compare, and the
# reporters that write the files at the end of a run.
module Arena
  module Report
    # Report formats, one class each, found by name (`arena report --format`).
    module Formats
      extend Support::Registry

      def self.kind = "report format"
    end
  end
end

require_relative "report/preset_summary"
require_relative "report/rows"
require_relative "report/relative"
require_relative "report/labels"
require_relative "report/progress"
require_relative "report/aa"
require_relative "report/per_request"
require_relative "report/queue_work"
require_relative "report/envelope_lines"
require_relative "report/side"
require_relative "report/findings"
require_relative "report/advice"
require_relative "report/brief"
require_relative "report/brief_findings"
require_relative "report/brief_pick"
require_relative "report/terminal"
require_relative "report/source"
require_relative "report/facts"
require_relative "report/svg"
require_relative "report/svg/bars"
require_relative "report/svg/lines"
require_relative "report/colors"
require_relative "report/charts"
require_relative "report/timeline_charts"
require_relative "report/sustained_chart"
require_relative "report/timeline_side"
require_relative "report/sides/sustained"
require_relative "report/sides/restart"
require_relative "report/sides/crash"
require_relative "report/sides/profile"
require_relative "report/sides/slow_clients"
require_relative "report/breakpoint_chart"
require_relative "report/sides/breakpoint"
require_relative "report/rate_chart"
require_relative "report/sides/rate"
require_relative "report/worker_cost_chart"
require_relative "report/sides/worker_cost"
require_relative "report/memory_timeline"
require_relative "report/sides/soak"
require_relative "report/sides/head_of_line"
require_relative "verdicts/pick"
require_relative "report/recommend"
require_relative "report/closing"
require_relative "report/answer_section"
require_relative "report/markdown"
require_relative "report/html"
require_relative "report/compare"
require_relative "report/files"
