# frozen_string_literal: true

require_relative "../support/format"
require_relative "charts"
require_relative "rows"
require_relative "svg"
require_relative "svg/lines"

module Arena
  module Report
    # The rate sweep's latency against offered rate, each knee marked.
    class RateChart
      def initialize(document, colors:)
        @curves = document.measurements.select { |m| m.scenario == "rate" && m.summary? && m.extra["curve"].is_a?(Array) }
        @colors = colors
      end

      def section
        return nil if @curves.empty?
        table = []
        charts = @curves.group_by(&:workload).map { |workload, group| chart(workload, group, table) }
        Section.new(id: "rate", title: "Rate sweep (open model)", charts: charts,
          note: "Constant request rates from 10% to 120% of each server's closed maximum; p99 (of good responses) counts " \
                "from each request's intended start. The knee is the highest rate served with p99 within the SLO, " \
                "errors under 1%, under 1% dropped, and at least 100 samples.",
          headings: ["server", "workload", "target req/s", "good req/s", "p50", "p99", "n", "late", "dropped", "errors", ""], rows: table)
      end

      private

      def chart(workload, group, table)
        f = Support::Format
        marks = []
        series = group.map do |s|
          curve = s.extra["curve"]
          knee = curve.find { |c| c["target_rps"] == s.extra["knee_rps"] }
          if knee
            marks << {x: knee["target_rps"].to_f, y: knee["p99_us"], color: @colors.call(s.server),
                      label: "knee: #{s.server.split(":").first} #{f.rps(knee["target_rps"])} req/s"}
          end
          curve.each do |c|
            table << [s.server, workload, f.rps(c["target_rps"].to_f), f.rps((c["good_rps"] || c["achieved_rps"]).to_f),
              f.duration_us(c["p50_us"]), Format.percentile_us(c["p99_us"], c["samples"], :p99), c["samples"] || "-",
              c["late"], c["dropped"], c["errors"], (c["target_rps"] == s.extra["knee_rps"]) ? "knee" : ""]
          end
          {name: s.server, color: @colors.call(s.server), points: curve.map { |c| [c["target_rps"].to_f, c["p99_us"]&.positive? ? c["p99_us"] : nil] }}
        end
        slo = group.first.extra["slo_ms"].to_f * 1000
        rates = series.flat_map { |l| l[:points].map(&:first) }.select(&:positive?)
        spread = rates.empty? ? 1 : rates.max / rates.min
        {title: "Rate sweep: #{workload}", svg: Svg::Lines.new(title: "Rate sweep #{workload}", series: series, marks: marks,
          hlines: [{y: slo, label: "SLO: p99 ≤ #{Svg.duration_tick(slo)}"}], log_x: spread > 20,
          x_label: "offered rate (requests per second, open model#{", log scale" if spread > 20})",
          y_label: "p99 latency (log scale)", x_format: ->(v) { Svg.count_tick(v) },
          y_format: ->(v) { Svg.duration_tick(v) }, log_y: true, y_zero: false).render}
      end
    end
  end
end
