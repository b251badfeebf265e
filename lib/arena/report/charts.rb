# frozen_string_literal: true

module Arena
  module Report
    # One section of the HTML report: a heading, its charts (SVG markup) and
    # the table of the figures drawn, so every number can also be read.
    Section = Struct.new(:id, :title, :nav, :note, :charts, :headings, :rows, keyword_init: true)

    # The closed-model sections: throughput, latency percentiles, memory, slow
    # clients. Figures come from Rows so the page agrees with the tables.
    class Charts
      PERCENTILES = [["p50", 0.5], ["p75", 0.75], ["p90", 0.9], ["p99", 0.99], ["p999", 0.999], ["p9999", 0.9999]].freeze
      STEADY = %w[steady reps].freeze

      def initialize(document)
        @document = document
        @rows = Rows.from(document)
        @servers = @rows.map(&:server).uniq
      end

      def sections = [throughput, latency, memory, slow_clients].compact

      # The same colour for a server on every chart of the page.
      def color(server) = Svg.color(@servers.index(server) || @servers.size)

      private

      def steady = @rows.select { |r| STEADY.include?(r.scenario) }

      def title_of(workload, scenario, variant) = "#{workload} — #{[scenario, variant].compact.join(" ")}"

      def throughput
        rows = steady
        return nil if rows.empty?
        charts = rows.group_by { |r| [r.workload, r.scenario, r.variant] }.map do |key, group|
          repeated = group.any? { |r| r.runs > 1 }
          axis = "requests per second (median#{" of #{group.map(&:runs).max} runs; whiskers: min–max" if repeated})"
          {title: "Throughput: #{title_of(*key)}", svg: Svg::Bars.new(title: "Throughput #{title_of(*key)}",
            categories: group.map(&:server), x_label: axis, format: ->(v) { Format.rps(v) },
            colors: group.map { |r| color(r.server) },
            series: [{name: "req/s", values: group.map(&:rps), mins: group.map { |r| r.rps_min if r.runs > 1 },
                      maxs: group.map { |r| r.rps_max if r.runs > 1 }}]).render}
        end
        Section.new(id: "throughput", title: "Throughput", charts: charts,
          note: "Closed model: each connection sends its next request as soon as the last is answered.",
          headings: ["server", "workload", "scenario", "runs", "req/s", "min", "max", "p50", "p99", "errors"],
          rows: rows.map do |r|
            [r.server, r.workload, [r.scenario, r.variant].compact.join(" "), r.runs, Format.rps(r.rps), Format.rps(r.rps_min),
              Format.rps(r.rps_max), Format.duration_us(r.p50_us), Format.duration_us(r.p99_us), r.errors]
          end)
      end

      def latency
        groups = measured(STEADY).group_by { |m| m.values_at("workload", "scenario", "variant") }
        return nil if groups.empty?
        ticks = PERCENTILES.map { |name, q| [position(q), {"p999" => "p99.9", "p9999" => "p99.99"}.fetch(name, name)] }
        table = []
        charts = groups.map do |key, ms|
          series = ms.group_by { |m| m["server"] }.map do |server, runs|
            values = PERCENTILES.map { |name, _| Rows.median(runs.map { |m| m.dig("load", "latency_us", name).to_f }) }
            table << [server, key[0], [key[1], key[2]].compact.join(" "), *values.map { |v| Format.duration_us(v) },
              Format.duration_us(runs.map { |m| m.dig("load", "latency_us", "max").to_f }.max)]
            {name: server, color: color(server), points: PERCENTILES.each_with_index.map { |(_, q), i| [position(q), values[i]] }}
          end
          {title: "Latency percentiles: #{title_of(*key)}", svg: Svg::Lines.new(title: "Latency percentiles #{title_of(*key)}",
            series: series, x_label: "percentile (of all requests in the run)", y_label: "latency (log scale)",
            x_format: ->(v) { v.to_s }, y_format: ->(v) { Svg.duration_tick(v) }, x_ticks: ticks, log_y: true).render}
        end
        Section.new(id: "latency", title: "Latency percentiles", charts: charts,
          note: "Medians over repeats. The y axis is logarithmic: each grid line is a factor of ten (or 2 and 5 within a decade).",
          headings: ["server", "workload", "scenario", "p50", "p75", "p90", "p99", "p99.9", "p99.99", "max"], rows: table)
      end

      # p50, p90, p99, ... equally spaced, as in HdrHistogram plots.
      def position(q) = Math.log10(1.0 / (1.0 - q))

      def memory
        rows = steady.select { |r| r.pss_peak_kb.positive? }
        return nil if rows.empty?
        categories = rows.map { |r| "#{r.server} · #{r.workload}" }
        svg = Svg::Bars.new(title: "Memory: PSS beside RSS", categories: categories, x_label: "memory of the whole process tree, peak (MiB)",
          format: ->(mib) { format("%.1f", mib) }, series: [
            {name: "PSS peak (shared pages split between processes)", values: rows.map { |r| r.pss_peak_kb / 1024.0 }, color: "#0072B2"},
            {name: "RSS peak (shared pages counted once per process)", values: rows.map { |r| r.rss_peak_kb / 1024.0 }, color: "#E69F00", opacity: 0.55}
          ]).render
        Section.new(id: "memory", title: "Memory", charts: [{title: "PSS and RSS per server", svg: svg}],
          note: "PSS is the honest figure for a prefork server: copy-on-write pages are shared, not multiplied. RSS is shown only beside it.",
          headings: ["server", "workload", "PSS peak", "RSS peak", "CPU"],
          rows: rows.map { |r| [r.server, r.workload, Format.memory_kb(r.pss_peak_kb), Format.memory_kb(r.rss_peak_kb), "#{r.cpu_pct.round}%"] })
      end

      def slow_clients
        pairs = measured(%w[slow-clients]).select { |m| m.dig("extra", "rps_ratio") }
        return nil if pairs.empty?
        label = pairs.first["variant"]
        svg = Svg::Bars.new(title: "Slow clients", categories: pairs.map { |m| "#{m["server"]} · #{m["workload"]}" },
          x_label: "requests per second", format: ->(v) { Format.rps(v) }, series: [
            {name: "alone", values: pairs.map { |m| m.dig("extra", "rps_alone").to_f }, color: "#0072B2"},
            {name: label, values: pairs.map { |m| m.dig("load", "throughput_rps").to_f }, color: "#D55E00"}
          ]).render
        Section.new(id: "slow-clients", title: "Slow clients", charts: [{title: "Throughput alone and beside slow clients", svg: svg}],
          note: "The same steady load twice: alone, then while slow connections trickle their requests (no proxy in front).",
          headings: ["server", "workload", "with", "req/s alone", "req/s with", "share kept", "p99 alone", "p99 with"],
          rows: pairs.map do |m|
            [m["server"], m["workload"], m["variant"], Format.rps(m.dig("extra", "rps_alone").to_f), Format.rps(m.dig("load", "throughput_rps").to_f),
              "#{(100 * m.dig("extra", "rps_ratio")).round}%", Format.duration_us(m.dig("extra", "p99_us_alone")),
              Format.duration_us(m.dig("load", "latency_us", "p99"))]
          end)
      end

      def measured(scenarios)
        @document.fetch("measurements", []).select { |m| scenarios.include?(m["scenario"]) && m["load"].is_a?(Hash) }
      end
    end
  end
end
