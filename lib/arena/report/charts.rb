# frozen_string_literal: true

module Arena
  module Report
    # One section of the HTML report: a heading, its charts (SVG markup) and
    # the table of the figures drawn, so every number can also be read.
    # `layout` :panels lays its charts out side by side (event timelines).
    Section = Struct.new(:id, :title, :nav, :note, :charts, :headings, :rows, :layout, keyword_init: true) do
      def panels? = layout == :panels
    end

    # The closed-model sections every run has: throughput, latency
    # percentiles, memory, over the scenarios whose rows are plain throughput.
    # Figures come from Rows so the page agrees with the tables. A scenario's
    # own sections come from the scenario (its `sections`).
    class Charts
      PERCENTILES = [["p50", 0.5], ["p75", 0.75], ["p90", 0.9], ["p99", 0.99], ["p999", 0.999], ["p9999", 0.9999]].freeze
      def initialize(document)
        @document = document
        @rows = Rows.from(document)
        @servers = @rows.map(&:server).uniq
        @basis = Scenarios.throughput_basis
      end

      def sections = [throughput, latency, memory].compact

      # The same colour for a server on every chart of the page.
      def color(server) = Svg.color(@servers.index(server) || @servers.size)

      private

      def steady = @rows.select { |r| @basis.include?(r.scenario) }

      def title_of(workload, scenario, variant) = "#{workload} — #{[scenario, variant].compact.join(" ")}"

      def throughput
        rows = steady
        return nil if rows.empty?
        charts = rows.group_by { |r| [r.workload, r.scenario, r.variant] }.map do |key, group|
          repeated = group.any? { |r| r.runs > 1 }
          axis = "good requests per second (median#{" of #{group.map(&:runs).max} runs; whiskers: min–max" if repeated})"
          {title: "Throughput: #{title_of(*key)}", svg: Svg::Bars.new(title: "Throughput #{title_of(*key)}",
            categories: group.map(&:server), x_label: axis, format: ->(v) { Format.rps(v) },
            colors: group.map { |r| color(r.server) },
            series: [{name: "good req/s", values: group.map(&:rps), mins: group.map { |r| r.rps_min if r.runs > 1 },
                      maxs: group.map { |r| r.rps_max if r.runs > 1 }}]).render}
        end
        Section.new(id: "throughput", title: "Throughput", charts: charts,
          note: "Closed model: each connection sends its next request as soon as the last is answered. " \
                "Goodput: only responses that passed the checks count; errors are shown beside it.",
          headings: ["server", "workload", "scenario", "runs", "good req/s", "min", "max", "p50", "p99", "errors"],
          rows: rows.map do |r|
            [r.server, r.workload, r.label, r.runs, Format.rps(r.rps), Format.rps(r.rps_min),
              Format.rps(r.rps_max), Format.duration_us(r.p50_us), Format.percentile_us(r.p99_us, r.samples, :p99),
              Format.error_pct(r.error_pct)]
          end)
      end

      def latency
        groups = @document.measured.select { |m| @basis.include?(m.scenario) }.group_by { |m| [m.workload, m.scenario, m.variant] }
        return nil if groups.empty?
        ticks = PERCENTILES.map { |name, q| [position(q), {"p999" => "p99.9", "p9999" => "p99.99"}.fetch(name, name)] }
        table = []
        charts = groups.map do |key, ms|
          series = ms.group_by(&:server).map do |server, runs|
            n = runs.map { |m| m.load.latency.n }.min
            # A percentile that n does not support is not drawn.
            shown = PERCENTILES.select { |name, _| n >= Results::PERCENTILE_MIN_SAMPLES.fetch(name.to_sym, 1) }
            values = PERCENTILES.map { |name, _| Rows.median(runs.map { |m| m.load.latency[name.to_sym].to_f }) }
            table << [server, key[0], [key[1], key[2]].compact.join(" "),
              *PERCENTILES.each_with_index.map { |(name, _), i| Format.percentile_us(values[i], n, name.to_sym) },
              Format.duration_us(runs.map { |m| m.load.latency.max.to_f }.max), n]
            {name: server, color: color(server),
             points: PERCENTILES.each_with_index.filter_map { |(name, q), i| [position(q), values[i]] if shown.assoc(name) }}
          end
          {title: "Latency percentiles: #{title_of(*key)}", svg: Svg::Lines.new(title: "Latency percentiles #{title_of(*key)}",
            series: series, x_label: "percentile (of the good responses in the run)", y_label: "latency (log scale)",
            x_format: ->(v) { v.to_s }, y_format: ->(v) { Svg.duration_tick(v) }, x_ticks: ticks, log_y: true).render}
        end
        Section.new(id: "latency", title: "Latency percentiles", charts: charts,
          note: "Medians over repeats, of good responses. A percentile is drawn only where n supports it " \
                "(p99 needs 100 samples, p99.9 1,000). The y axis is logarithmic.",
          headings: ["server", "workload", "scenario", "p50", "p75", "p90", "p99", "p99.9", "p99.99", "max", "n"], rows: table)
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
    end
  end
end
