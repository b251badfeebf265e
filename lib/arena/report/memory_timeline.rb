# frozen_string_literal: true

require_relative "../support/format"
require_relative "charts"
require_relative "side"
require_relative "svg"
require_relative "svg/lines"

module Arena
  module Report
    # One section per soak: the tree's PSS (with USS and RSS beside it) and
    # each process's PSS over time, a process appearing or vanishing marked
    # (a respawn, a refork); latency per slice; each process's slope.
    class MemoryTimeline
      # Processes drawn one line each; more would be unreadable.
      MAX_LINES = 8

      def initialize(document, colors:)
        @soaks = document.measured.select { |m| m.scenario == "soak" && m.variant == "soak" && m.probes&.samples&.any? }
        @colors = colors
      end

      def sections
        @soaks.each_with_index.map do |m, i|
          x = m.extra
          Section.new(id: "soak-#{i + 1}", title: "Soak: #{m.server} · #{m.workload}", nav: "soak (#{m.server.split(":").first})",
            note: Side.of(Scenarios::Soak).finding(m), charts: [memory_chart(m), latency_chart(m)].compact,
            headings: ["process", "PSS first", "PSS last", "MiB/min", "seen (s)"],
            rows: Array(x["processes"]).map do |p|
              [p["pid"], Support::Format.memory_kb(p["pss_first_kb"]), Support::Format.memory_kb(p["pss_last_kb"]),
                p["slope_mib_per_min"] ? format("%+.2f", p["slope_mib_per_min"]) : "-", Array(p["seen_s"]).map { |t| t.round(1) }.join("–")]
            end)
        end
      end

      private

      def memory_chart(m)
        samples = m.probes.samples
        mib = ->(kb) { kb.to_f / 1024 }
        series = [
          {name: "PSS (tree)", color: @colors.call(m.server), points: samples.map { |s| [s.t, mib.call(s.pss_kb)] }},
          {name: "USS (tree)", color: "#777777", points: samples.map { |s| [s.t, mib.call(s.uss_kb)] }},
          {name: "RSS (tree, shared pages once per process)", color: "#bbbbbb", points: samples.map { |s| [s.t, mib.call(s.rss_kb)] }}
        ]
        per = per_process(samples)
        # Each process in a colour of its own, none the tree's.
        palette = Svg::PALETTE - [@colors.call(m.server), "#444444"]
        per.max_by(MAX_LINES) { |_, pts| pts.map(&:last).max }.each_with_index do |(pid, points), i|
          series << {name: "PSS pid #{pid}", color: palette[i % palette.size], points: points.map { |t, kb| [t, mib.call(kb)] }}
        end
        fit_end = samples.last.t
        slope = m.soak_slope
        title = "#{m.server} #{m.workload}: memory over the soak"
        {title: "Memory over time (#{m.extra["verdict"]}#{", #{format("%+.2f", slope)} MiB/min" if slope})",
         svg: Svg::Lines.new(title: title, series: series, vlines: events(samples, per), x_range: [0, fit_end],
           x_label: "seconds since the soak started", y_label: "MiB", x_format: ->(v) { "#{Svg.trim(v)}s" },
           y_format: ->(v) { Svg.trim(v.round(1)) }).render}
      end

      def latency_chart(m)
        slices = Array(m.extra["latency_slices"])
        return nil if slices.empty?
        step = m.extra["slice_s"]
        series = [
          {name: "p99 (worst second of the slice)", color: @colors.call(m.server), points: slices.map { |s| [s["from_s"] + step / 2.0, s["p99_us"]] }},
          {name: "p50 (median second)", color: "#777777", points: slices.map { |s| [s["from_s"] + step / 2.0, s["p50_us"]] }}
        ]
        {title: "Latency per #{step} s slice (drift)",
         svg: Svg::Lines.new(title: "#{m.server} #{m.workload}: latency drift", series: series, log_y: true, y_zero: false,
           x_label: "seconds into the measured phase", y_label: "latency (log scale)", x_format: ->(v) { "#{Svg.trim(v)}s" },
           y_format: ->(v) { Svg.duration_tick(v) }, height: 260).render}
      end

      def per_process(samples)
        series = Hash.new { |h, k| h[k] = [] }
        samples.each { |s| Array(s.processes).each { |p| series[p["pid"]] << [s.t, p["pss_kb"]] } }
        series
      end

      # A process that appears after the first sample or vanishes before the
      # last: a worker respawned, reforked or killed.
      def events(samples, per)
        first = samples.first.t
        last = samples.last.t
        marks = per.flat_map do |pid, points|
          [(points.first[0] > first) ? {x: points.first[0], label: "pid #{pid} appears"} : nil,
            (points.last[0] < last) ? {x: points.last[0], label: "pid #{pid} gone"} : nil]
        end
        marks.compact.first(6)
      end
    end
  end
end
