# frozen_string_literal: true

module Arena
  module Report
    # Crash and restart runs second by second: throughput, errors, p99 and the
    # process count, with the moment of the kill or restart marked, so a dip,
    # its errors and the respawn can be seen in one glance.
    class TimelineCharts
      SCENARIOS = %w[crash restart].freeze

      def initialize(document, colors:)
        @measurements = document.fetch("measurements", []).select do |m|
          SCENARIOS.include?(m["scenario"]) && m.dig("load", "timeline").is_a?(Array)
        end
        @colors = colors
      end

      def sections
        return [] if @measurements.empty?
        @measurements.map.with_index do |m, i|
          timeline = m.dig("load", "timeline")
          procs = processes(m)
          Section.new(id: "timeline-#{i + 1}", title: "#{m["scenario"].capitalize} #{m["variant"]}: #{m["server"]} · #{m["workload"]}",
            nav: "#{m["scenario"]} #{m["variant"]} (#{m["server"].split(":").first})", note: Findings.line(m), charts: panels(m, timeline, procs),
            headings: ["second", "completed", "errors", "p50", "p99", "processes"],
            rows: timeline.map do |s|
              [s["t"], s["completed"], s["errors"], Format.duration_us(s["p50_us"]), Format.duration_us(s["p99_us"]),
                procs.select { |t, _| t >= s["t"] && t < s["t"] + 1 }.map(&:last).max || "-"]
            end)
        end
      end

      private

      def panels(m, timeline, procs)
        colour = @colors.call(m["server"])
        at = m.dig("extra", "event_at_s")
        event = (m["scenario"] == "crash") ? "worker killed" : "#{m["variant"]} restart"
        vlines = at ? [{x: at, label: event}] : []
        seconds = ->(v) { "#{Svg.trim(v)}s" }
        # Each second's figures are drawn at its middle: the dip after an
        # event at 2.0 s shows at 2.5 s, to the right of the event's line.
        mid = ->(key) { timeline.map { |s| [s["t"] + 0.5, yield_value(s, key)] } }
        span = [0, [timeline.size, m.dig("load", "duration_s").to_f].max]
        common = {x_label: "seconds into the measured phase", x_format: seconds, vlines: vlines, width: 470, height: 220,
                  legend: false, x_range: span}
        counts = common.merge(y_integer: true)
        [
          panel(m, "throughput (requests completed per second)", "requests/s", mid.call("completed"), colour, Svg.method(:count_tick), common),
          panel(m, "errors per second", "errors/s", mid.call("errors"), "#D55E00", Svg.method(:count_tick), counts),
          panel(m, "p99 latency per second", "p99 (log scale)", mid.call("p99_us"), colour, Svg.method(:duration_tick),
            common.merge(log_y: true, y_zero: false)),
          panel(m, "server processes (sampled)", "processes", procs.select { |t, _| t <= span[1] }, "#444444", Svg.method(:count_tick), counts)
        ]
      end

      def yield_value(second, key)
        value = second[key].to_i
        (key == "p99_us" && !value.positive?) ? nil : value
      end

      def panel(m, name, y_label, points, colour, y_format, options)
        title = "#{m["server"]} #{m["scenario"]} #{m["variant"]}: #{name}"
        return {title: name, svg: %(<p class="empty">no #{name} samples</p>)} if points.empty?
        {title: name, svg: Svg::Lines.new(title: title, series: [{name: name, color: colour, points: points}], y_label: y_label,
          y_format: y_format, **options).render}
      end

      # Probe samples count from the engine's start; the timeline from the end
      # of its warm-up. Shift the samples onto the timeline's clock.
      def processes(m)
        warmup = m.dig("load", "warmup_s").to_f
        (m.dig("probes", "samples") || []).filter_map do |s|
          t = s["t"].to_f - warmup
          [t.round(2), s["procs"]] if t >= 0 && s["procs"]
        end
      end
    end
  end
end
