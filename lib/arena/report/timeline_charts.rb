# frozen_string_literal: true

require_relative "../support/format"
require_relative "charts"
require_relative "side"
require_relative "svg"
require_relative "svg/lines"

module Arena
  module Report
    # Event runs (crash, restart) slice by slice: good throughput, errors, p99
    # and the process count, with the moment of the kill or restart marked, so
    # a dip, its errors and the respawn can be seen in one glance. Used by the
    # scenarios that own such runs.
    class TimelineCharts
      # scenario: the scenario class that owns the runs (its figures give the
      # event's moment, its event_label names it).
      def initialize(document, scenario:, colors:)
        @scenario = scenario
        @measurements = scenario.measured_in(document).select { |m| m.load.timeline.any? }
        @colors = colors
      end

      def sections
        @measurements.map.with_index do |m, i|
          procs = processes(m)
          step = m.load.interval_s
          Section.new(id: "timeline-#{@scenario.key}-#{i + 1}", title: "#{m.scenario.capitalize} #{m.variant}: #{m.server} · #{m.workload}",
            nav: "#{m.scenario} #{m.variant} (#{m.server.split(":").first})", note: Side.of(@scenario).finding(m),
            charts: panels(m, procs), layout: :panels,
            headings: ["from (s)", "good req/s", "errors", "p50", "p99", "processes"],
            rows: m.load.timeline.map do |p|
              [Svg.trim(p.t.round(2)), (p.good / step).round, p.errors, Support::Format.duration_us(p.p50_us), Support::Format.duration_us(p.p99_us),
                procs.select { |t, _| t >= p.t && t < p.t + step }.map(&:last).max || "-"]
            end)
        end
      end

      private

      def panels(m, procs)
        timeline = m.load.timeline
        step = m.load.interval_s
        colour = @colors.call(m.server)
        at = @scenario.figures_of(m).event_at_s
        event = Side.of(@scenario).event_label(m)
        vlines = at ? [{x: at, label: event}] : []
        # Other moments the scenario marks (a profile's stage boundaries).
        vlines += Side.of(@scenario).marks(m)
        seconds = ->(v) { "#{Svg.trim(v)}s" }
        # Each slice's figures are drawn at its middle: the dip after an event
        # at 2.0 s shows after the event's line.
        mid = ->(&value) { timeline.map { |p| [p.t + step / 2.0, value.call(p)] } }
        span = [0, [timeline.size * step, m.load.duration_s].max]
        common = {x_label: "seconds into the measured phase", x_format: seconds, vlines: vlines, width: 470, height: 220,
                  legend: false, x_range: span}
        counts = common.merge(y_integer: true)
        per = (step >= 1) ? "per second" : "per second, in #{(step * 1000).round} ms slices"
        [
          panel(m, "good throughput (#{per})", "requests/s", mid.call { |p| (p.good / step).round }, colour, Svg.method(:count_tick), common),
          panel(m, "errors (#{per})", "errors/s", mid.call { |p| (p.errors / step).round }, "#D55E00", Svg.method(:count_tick), counts),
          panel(m, "p99 latency per slice", "p99 (log scale)", mid.call { |p| p.p99_us.to_i.positive? ? p.p99_us : nil }, colour,
            Svg.method(:duration_tick), common.merge(log_y: true, y_zero: false)),
          panel(m, "server processes (sampled)", "processes", procs.select { |t, _| t <= span[1] }, "#444444", Svg.method(:count_tick), counts)
        ]
      end

      def panel(m, name, y_label, points, colour, y_format, options)
        title = "#{m.server} #{m.scenario} #{m.variant}: #{name}"
        return {title: name, svg: %(<p class="empty">no #{name} samples</p>)} if points.empty?
        {title: name, svg: Svg::Lines.new(title: title, series: [{name: name, color: colour, points: points}], y_label: y_label,
          y_format: y_format, **options).render}
      end

      # Probe samples count from the engine's start; the timeline from the end
      # of its warm-up. Shift the samples onto the timeline's clock.
      def processes(m)
        warmup = m.load.warmup_s
        m.probes.samples.filter_map do |s|
          t = s.t.to_f - warmup
          [t.round(2), s.procs] if t >= 0 && s.procs
        end
      end
    end
  end
end
