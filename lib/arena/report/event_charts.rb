# frozen_string_literal: true

module Arena
  module Report
    # The open-model and stepped sections: the rate sweep's latency against
    # throughput with each knee marked, and the break point search.
    class EventCharts
      def initialize(document, colors:)
        @measurements = document.fetch("measurements", [])
        @colors = colors
      end

      def sections = [rate, breakpoint].compact

      private

      def summaries(scenario) = @measurements.select { |m| m["scenario"] == scenario && m["kind"] == "summary" }

      def rate
        curves = summaries("rate").select { |s| s["curve"].is_a?(Array) }
        return nil if curves.empty?
        table = []
        charts = curves.group_by { |s| s["workload"] }.map do |workload, group|
          marks = []
          series = group.map do |s|
            points = s["curve"].map { |c| [c["target_rps"].to_f, c["p99_us"]&.positive? ? c["p99_us"] : nil] }
            knee = s["curve"].find { |c| c["target_rps"] == s["knee_rps"] }
            if knee
              marks << {x: knee["target_rps"].to_f, y: knee["p99_us"], color: @colors.call(s["server"]),
                        label: "knee: #{s["server"].split(":").first} #{Format.rps(s["knee_rps"])} req/s"}
            end
            s["curve"].each do |c|
              table << [s["server"], workload, Format.rps(c["target_rps"].to_f), Format.rps(c["achieved_rps"].to_f),
                Format.duration_us(c["p50_us"]), Format.duration_us(c["p99_us"]), c["late"], c["dropped"], c["errors"],
                (c["target_rps"] == s["knee_rps"]) ? "knee" : ""]
            end
            {name: s["server"], color: @colors.call(s["server"]), points: points}
          end
          slo = group.first["slo_ms"].to_f * 1000
          rates = series.flat_map { |l| l[:points].map(&:first) }.select(&:positive?)
          spread = rates.empty? ? 1 : rates.max / rates.min
          {title: "Rate sweep: #{workload}", svg: Svg::Lines.new(title: "Rate sweep #{workload}", series: series, marks: marks,
            hlines: [{y: slo, label: "SLO: p99 ≤ #{Svg.duration_tick(slo)}"}], log_x: spread > 20,
            x_label: "offered rate (requests per second, open model#{", log scale" if spread > 20})",
            y_label: "p99 latency (log scale)", x_format: ->(v) { Svg.count_tick(v) }, y_format: ->(v) { Svg.duration_tick(v) },
            log_y: true, y_zero: false).render}
        end
        Section.new(id: "rate", title: "Rate sweep (open model)", charts: charts,
          note: "Constant request rates from 10% to 120% of each server's closed maximum; p99 counts from each request's intended start. " \
                "The knee is the highest rate served with p99 within the SLO, no errors and under 1% dropped.",
          headings: ["server", "workload", "target req/s", "achieved", "p50", "p99", "late", "dropped", "errors", ""], rows: table)
      end

      def breakpoint
        levels = @measurements.select { |m| m["scenario"] == "breakpoint" && m["load"].is_a?(Hash) }
        return nil if levels.empty?
        found = summaries("breakpoint")
        table = []
        charts = levels.group_by { |m| m["workload"] }.flat_map do |workload, group|
          by_server = group.group_by { |m| m["server"] }
          rps = by_server.map { |server, ms| line(server, ms) { |m| m.dig("load", "throughput_rps").to_f } }
          p99 = by_server.map { |server, ms| line(server, ms) { |m| m.dig("load", "latency_us", "p99") } }
          marks = found.select { |s| s["workload"] == workload }.filter_map { |s| mark(s, by_server[s["server"]] || []) }
          by_server.each do |server, ms|
            ms.each do |m|
              table << [server, workload, connections(m), Format.rps(m.dig("load", "throughput_rps").to_f),
                Format.duration_us(m.dig("load", "latency_us", "p99")), m.dig("load", "errors", "total").to_i]
            end
          end
          slo = (found.first || {}).fetch("slo_ms", 100).to_f * 1000
          [{title: "Break point: #{workload}, throughput", svg: Svg::Lines.new(title: "Break point throughput #{workload}", series: rps,
            marks: marks, x_label: "concurrent connections", y_label: "requests per second", x_format: ->(v) { v.round.to_s },
            y_format: ->(v) { Svg.count_tick(v) }, height: 340).render},
            {title: "Break point: #{workload}, p99", svg: Svg::Lines.new(title: "Break point p99 #{workload}", series: p99,
              hlines: [{y: slo, label: "SLO: p99 ≤ #{Svg.duration_tick(slo)}"}], x_label: "concurrent connections",
              y_label: "p99 latency (log scale)", x_format: ->(v) { v.round.to_s }, y_format: ->(v) { Svg.duration_tick(v) },
              log_y: true, y_zero: false, height: 300).render}]
        end
        Section.new(id: "breakpoint", title: "Break points", charts: charts,
          note: "Concurrency raised step by step until errors appear or p99 passes the SLO. The ring marks the last clean level.",
          headings: ["server", "workload", "connections", "req/s", "p99", "errors"], rows: table)
      end

      def line(server, ms)
        {name: server, color: @colors.call(server), points: ms.map { |m| [connections(m), yield(m)] }.sort_by(&:first)}
      end

      def mark(summary, ms)
        clean = summary["last_clean_connections"]
        level = ms.find { |m| connections(m) == clean }
        return nil unless level
        broke = summary["broke_at_connections"] ? ", broke at #{summary["broke_at_connections"]}" : ", never broke"
        {x: clean, y: level.dig("load", "throughput_rps").to_f, color: @colors.call(summary["server"]),
         label: "clean at #{clean}#{broke}"}
      end

      def connections(m)
        argv = m["engine_argv"] || []
        i = argv.index("-c")
        i ? argv[i + 1].to_i : m.dig("load", "connections", "requested").to_i
      end
    end
  end
end
