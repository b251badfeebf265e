# frozen_string_literal: true

require_relative "../servers/base"
require_relative "../support/format"
require_relative "charts"
require_relative "svg"
require_relative "svg/lines"

module Arena
  module Report
    # report.html's section for sustained-rate measurements (an `arena tune`
    # run, or `--scenario sustained`): per workload, every config's sustained
    # rate against the peak PSS under it, in the order the search measured
    # them (the line is the search path), each server's frontier (the most
    # any config sustained within that much memory), its winner ringed.
    class SustainedChart
      # scenario: the one whose summaries these are (Scenarios::Sustained), asked for their figures.
      def initialize(document, scenario:, colors:)
        @scenario = scenario
        @summaries = document.measurements.select { |m| scenario.owns?(m) && m.summary? }
        @colors = colors
        @budget_mib = document.plan&.tune_memory_mib
      end

      def section
        return nil if @summaries.empty?
        rows = []
        charts = @summaries.group_by(&:workload).map { |workload, group| chart(workload, group, rows) }
        Section.new(id: "sustained", title: "Sustained rate against memory (tune)", charts: charts,
          note: "Each point is one server config: the highest open-model rate it sustained (p99 within the SLO, under 1% " \
                "errors and dropped, at least 100 samples) against the peak PSS of its process tree under that rate. " \
                "The line joins the configs in the order the search measured them; the frontier is the most any config " \
                "of that server sustained within that much memory. Unsustained configs sit at 0.",
          headings: ["config", "workload", "sustained req/s", "closed max req/s", "p99 at sustained", "PSS MiB", ""], rows: rows)
      end

      # The configs that sustain more than every config using less memory.
      def self.frontier(points)
        best = -1.0
        points.sort_by { |mib, rps| [mib, -rps] }.select { |_, rps| (rps > best).tap { |up| best = rps if up } }
      end

      # The config marked best: the most sustained among those within the
      # memory budget (tune's own rule: a config over it never wins, however
      # fast). Without a budget (a plain --scenario sustained run), the most
      # sustained. `configs`: [[key, sustained_rps, pss_mib]].
      def self.best(configs, budget_mib:)
        within = configs.select { |_, rps, mib| rps.to_f.positive? && (budget_mib.nil? || (mib && mib <= budget_mib)) }
        within.max_by { |_, rps, _| rps }&.first
      end

      def self.over_budget?(mib, budget_mib) = !budget_mib.nil? && !mib.nil? && mib > budget_mib

      # The frontier in a darker shade of its server's colour.
      def self.darker(hex) = "#" + hex.delete("#").scan(/../).map { |c| format("%02X", (c.to_i(16) * 0.55).round) }.join

      private

      def fig(m) = @scenario.figures_of(m)

      def mark(m, winner)
        return "best" if m.equal?(winner)
        self.class.over_budget?(fig(m).pss_mib&.to_f, @budget_mib) ? "over the #{@budget_mib} MiB budget" : ""
      end

      # The winner's tunable settings (the rest are in the table below the chart).
      def tuned_words(name, winner)
        keys = Servers.registry[name]&.tunables&.keys || []
        given = fig(winner).settings
        settings = given.is_a?(Hash) ? given.slice(*keys) : {}
        settings.empty? ? winner.server.split(":", 2)[1].to_s : Support::Format.pairs(settings)
      end

      def chart(workload, group, rows)
        f = Support::Format
        series = []
        marks = []
        group.group_by { |m| m.server.split(":").first }.each do |name, configs|
          color = @colors.call(configs.first.server)
          points = configs.filter_map { |m| fig(m).pss_mib && [fig(m).pss_mib.to_f, fig(m).sustained_rps.to_f] }
          index = self.class.best(configs.each_with_index.map { |m, i| [i, fig(m).sustained_rps, fig(m).pss_mib&.to_f] }, budget_mib: @budget_mib)
          winner = index && configs[index]
          configs.each do |m|
            x = fig(m)
            rows << [m.server, workload, f.rps(x.sustained_rps.to_f), f.rps(x.closed_max_rps.to_f),
              x.p99_ms ? "#{x.p99_ms} ms" : "-", x.pss_mib || "-", mark(m, winner)]
          end
          next if points.empty?
          series << {name: "#{name} search path", color: color, points: points}
          series << {name: "#{name} frontier", color: self.class.darker(color), points: self.class.frontier(points)}
          best = winner && fig(winner)
          if best&.pss_mib && best.sustained_rps.to_f.positive?
            marks << {x: best.pss_mib.to_f, y: best.sustained_rps.to_f, color: color,
                      label: "#{name}: #{tuned_words(name, winner)}"}
          end
        end
        return {title: "Sustained rate: #{workload}", svg: ""} if series.empty?
        {title: "Sustained rate against memory: #{workload}", svg: Svg::Lines.new(title: "Sustained rate #{workload}",
          series: series, marks: marks, x_label: "peak PSS of the process tree under that rate (MiB)",
          y_label: "sustained rate (req/s, open model)", x_format: ->(v) { Svg.trim(v.round(1)) },
          y_format: ->(v) { Svg.count_tick(v) }).render}
      end
    end
  end
end
