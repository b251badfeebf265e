# frozen_string_literal: true

require_relative "../support/format"
require_relative "charts"
require_relative "rows"
require_relative "svg"

module Arena
  module Report
    # Throughput and p99 against concurrency, the last clean level marked.
    class BreakpointChart
      def initialize(document, colors:)
        @levels = document.measured.select { |m| m.scenario == "breakpoint" }
        @found = document.measurements.select { |m| m.scenario == "breakpoint" && m.summary? }
        @colors = colors
      end

      def section
        return nil if @levels.empty?
        table = []
        charts = @levels.group_by(&:workload).flat_map { |workload, group| charts(workload, group, table) }
        Section.new(id: "breakpoint", title: "Break points", charts: charts,
          note: "Concurrency raised level by level until errors pass 1% or p99 (of good responses) passes the SLO. " \
                "The ring marks the last clean level.",
          headings: ["server", "workload", "connections", "good req/s", "p99", "errors"], rows: table)
      end

      private

      def charts(workload, group, table)
        svg = Svg
        by_server = group.group_by(&:server)
        rps = by_server.map { |server, ms| line(server, ms, &:good_rps) }
        p99 = by_server.map { |server, ms| line(server, ms) { |m| m.load.latency.p99 } }
        marks = @found.select { |s| s.workload == workload }.filter_map { |s| mark(s, by_server[s.server] || []) }
        by_server.each do |server, ms|
          ms.each do |m|
            table << [server, workload, connections(m), Support::Format.rps(m.good_rps),
              Format.percentile_us(m.load.latency.p99, m.load.latency.n, :p99), m.load.errors]
          end
        end
        slo = (@found.first&.extra || {}).fetch("slo_ms", 100).to_f * 1000
        [{title: "Break point: #{workload}, throughput", svg: svg::Lines.new(title: "Break point throughput #{workload}", series: rps,
          marks: marks, x_label: "concurrent connections", y_label: "good requests per second", x_format: ->(v) { v.round.to_s },
          y_format: ->(v) { svg.count_tick(v) }, height: 340).render},
          {title: "Break point: #{workload}, p99", svg: svg::Lines.new(title: "Break point p99 #{workload}", series: p99,
            hlines: [{y: slo, label: "SLO: p99 ≤ #{svg.duration_tick(slo)}"}], x_label: "concurrent connections",
            y_label: "p99 latency (log scale)", x_format: ->(v) { v.round.to_s }, y_format: ->(v) { svg.duration_tick(v) },
            log_y: true, y_zero: false, height: 300).render}]
      end

      def line(server, ms)
        {name: server, color: @colors.call(server), points: ms.map { |m| [connections(m), yield(m)] }.sort_by(&:first)}
      end

      def mark(summary, ms)
        clean = summary.extra["last_clean_connections"]
        level = ms.find { |m| connections(m) == clean }
        return nil unless level
        broke = if summary.extra["broke_at_connections"] then ", broke at #{summary.extra["broke_at_connections"]}"
        elsif summary.extra["verdict"] == "stopped" then ", stopped by --max-time"
        else ", never broke"
        end
        {x: clean, y: level.good_rps, color: @colors.call(summary.server), label: "clean at #{clean}#{broke}"}
      end

      def connections(m) = m.settings&.connections || m.load.connections_requested
    end
  end
end
