# frozen_string_literal: true

require_relative "../scenarios/base"
require_relative "../support/format"
require_relative "../verdicts/limits"
require_relative "colors"
require_relative "labels"
require_relative "rows"
require_relative "svg"
require_relative "svg/bars"
require_relative "svg/lines"

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
        @labels = Labels.new(document)
        @colors = Colors.new(document.servers.map(&:label) + @rows.map(&:server) + document.measurements.map(&:server))
        @basis = Scenarios.throughput_basis
      end

      def sections = [throughput, latency, memory].compact

      # The same colour for a server on every chart of the page (Colors).
      def color(server) = @colors.call(server)

      private

      def title_of(workload, scenario, variant) = "#{workload} — #{[scenario, variant].compact.join(" ")}"

      # One chart per workload and scenario, the fastest server on top, each
      # bar's whisker the median's 95% interval: the ± of the summary table.
      def throughput
        groups = Rows.grouped(@document).select { |(_, scenario, _), _| @basis.include?(scenario) }
        return nil if groups.empty?
        charts = groups.map do |key, group|
          rounds = group.map(&:runs).max
          whiskers = group.any? { |r| r.interval&.measured? }
          axis = "good requests per second (median of #{rounds} round#{"s" unless rounds == 1}" \
            "#{"; whiskers: its 95% interval, the ± of the summary" if whiskers})"
          twice("Throughput: #{title_of(*key)}") do |size|
            Svg::Bars.new(title: "Throughput #{title_of(*key)}",
              categories: group.map { |r| name(r) }, x_label: axis, format: ->(v) { Support::Format.rps(v) },
              colors: group.map { |r| color(r.server) }, **size,
              series: [{name: "good req/s", values: group.map(&:rps), whisker: "95% interval",
                        lows: group.map { |r| r.interval.low if r.interval&.measured? },
                        highs: group.map { |r| r.interval.high if r.interval&.measured? }}]).render
          end
        end
        rows = groups.flat_map(&:last)
        Section.new(id: "throughput", title: "Throughput", charts: charts,
          note: "Closed model: each connection sends its next request as soon as the last is answered. " \
                "Goodput: only responses that passed the checks count; errors are shown beside it. " \
                "The fastest server on top; a whisker is the median's 95% interval over the rounds (from 3 rounds), " \
                "the same ± as the summary table's.",
          headings: ["server", "workload", "scenario", "rounds", "good req/s", "95% interval", "min", "max", "p50", "p99", "errors"],
          rows: rows.map do |r|
            [name(r), r.workload, r.label, r.runs, Support::Format.rps(r.rps), interval_text(r), Support::Format.rps(r.rps_min),
              Support::Format.rps(r.rps_max), Support::Format.duration_us(r.p50_us), Format.percentile_us(r.p99_us, r.samples, :p99),
              Support::Format.error_pct(r.error_pct)]
          end)
      end

      def name(row) = @labels.call(row.server)

      # A chart drawn twice: for a wide window and, narrower so its text stays
      # readable, for a phone's (the page's CSS shows one of the two).
      NARROW = {bars: {width: 400, css: "narrow"}, lines: {width: 420, height: 340, css: "narrow"}}.freeze

      def twice(title, kind: :bars)
        {title: title, svg: yield(css: "wide"), narrow: yield(**NARROW.fetch(kind))}
      end

      def interval_text(r) = r.interval&.measured? ? "#{Support::Format.rps(r.interval.low)}–#{Support::Format.rps(r.interval.high)}" : "-"

      def latency
        groups = @document.measured.select { |m| @basis.include?(m.scenario) }.group_by { |m| [m.workload, m.scenario, m.variant] }
        return nil if groups.empty?
        ticks = PERCENTILES.map { |name, q| [position(q), {"p999" => "p99.9", "p9999" => "p99.99"}.fetch(name, name)] }
        table = []
        charts = groups.map do |key, ms|
          # Servers in the summary's order: the fastest first.
          order = @rows.select { |r| [r.workload, r.scenario, r.variant] == key }.sort_by { |r| -r.rps }.map(&:server)
          series = ms.group_by(&:server).sort_by { |server, _| order.index(server) || order.size }.map do |server, runs|
            n = runs.map { |m| m.load.latency.n }.min
            # A percentile that n does not support is not drawn.
            shown = PERCENTILES.select { |name, _| n >= Verdicts::Limits::PERCENTILE_MIN_SAMPLES.fetch(name.to_sym, 1) }
            values = PERCENTILES.map { |name, _| Rows.median(runs.map { |m| m.load.latency[name.to_sym].to_f }) }
            table << [@labels.call(server), key[0], [key[1], key[2]].compact.join(" "),
              *PERCENTILES.each_with_index.map { |(name, _), i| Format.percentile_us(values[i], n, name.to_sym) },
              Support::Format.duration_us(runs.map { |m| m.load.latency.max.to_f }.max), n]
            {name: @labels.call(server), color: color(server),
             points: PERCENTILES.each_with_index.filter_map { |(name, q), i| [position(q), values[i]] if shown.assoc(name) }}
          end
          twice("Latency percentiles: #{title_of(*key)}", kind: :lines) do |size|
            Svg::Lines.new(title: "Latency percentiles #{title_of(*key)}",
              series: series, x_label: "percentile (of the good responses in the run)", y_label: "latency (log scale)",
              x_format: ->(v) { v.to_s }, y_format: ->(v) { Svg.duration_tick(v) }, x_ticks: ticks, log_y: true, **size).render
          end
        end
        Section.new(id: "latency", title: "Latency percentiles", charts: charts,
          note: "Medians over repeats, of good responses. A percentile is drawn only where n supports it " \
                "(p99 needs 100 samples, p99.9 1,000). The y axis is logarithmic.",
          headings: ["server", "workload", "scenario", "p50", "p75", "p90", "p99", "p99.9", "p99.99", "max", "n"], rows: table)
      end

      # p50, p90, p99, ... equally spaced, as in HdrHistogram plots.
      def position(q) = Math.log10(1.0 / (1.0 - q))

      # Each server in its own colour, PSS solid and RSS pale beside it; per
      # workload, the smallest PSS on top.
      def memory
        rows = Rows.grouped(@document).select { |(_, scenario, _), _| @basis.include?(scenario) }
          .group_by { |(workload, _, _), _| workload }
          .flat_map { |_, groups| groups.flat_map(&:last).select { |r| r.pss_peak_kb.positive? }.sort_by(&:pss_peak_kb) }
        return nil if rows.empty?
        categories = rows.map { |r| "#{name(r)} · #{r.workload}" }
        chart = twice("PSS and RSS per server") do |size|
          Svg::Bars.new(title: "Memory: PSS beside RSS", categories: categories, x_label: "memory of the whole process tree, peak (MiB)",
            format: ->(mib) { format("%.1f", mib) }, colors: rows.map { |r| color(r.server) }, **size, series: [
              {name: "PSS peak (shared pages split between processes)", values: rows.map { |r| r.pss_peak_kb / 1024.0 }, swatch: "#555555"},
              {name: "RSS peak, pale (shared pages counted per process)", values: rows.map { |r| r.rss_peak_kb / 1024.0 },
               swatch: "#c8c8c8", opacity: 0.35}
            ]).render
        end
        Section.new(id: "memory", title: "Memory", charts: [chart],
          note: "PSS is the honest figure for a prefork server: copy-on-write pages are shared, not multiplied. RSS is shown only beside it.",
          headings: ["server", "workload", "PSS peak", "RSS peak", "CPU"],
          rows: rows.map { |r| [name(r), r.workload, Support::Format.memory_kb(r.pss_peak_kb), Support::Format.memory_kb(r.rss_peak_kb), "#{r.cpu_pct.round}%"] })
      end
    end
  end
end
