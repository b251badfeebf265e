# frozen_string_literal: true

require_relative "../support/format"
require_relative "charts"
require_relative "svg"

module Arena
  module Report
    # One stacked bar per worker count: the tree's PSS split into what only
    # one process holds (USS, solid) and its share of pages held by several
    # (PSS − USS, shaded: copy-on-write memory counted once); the fit's
    # per-worker cost in the note and the table.
    class WorkerCostChart
      BAR = 18
      GAP = 10
      WIDTH = 960
      # The plot's edges: worker labels left of LEFT, totals right of RIGHT,
      # the legend above TOP.
      LEFT = 150
      RIGHT = WIDTH - 110
      TOP = 40

      # A share of memory shared with the parent, as the table reads it.
      def self.pct(share) = share ? "#{(100 * share).round}%" : "-"

      def initialize(document, colors:)
        # [measurement, its figures, its points] of each worker-cost fit.
        @fits = Scenarios::WorkerCost.fits(document)
        @colors = colors
      end

      def section
        return nil if @fits.empty?
        rows = @fits.flat_map do |m, x, points|
          points.map do |p|
            [m.server, m.workload, p.refork ? "#{p.workers} (refork_after #{p.refork_after})" : p.workers,
              Support::Format.rps(p.good_rps.to_f), mib(p.pss_kb), mib(p.uss_kb), mib(p.rss_kb),
              WorkerCostChart.pct(p.sharing_boot), WorkerCostChart.pct(p.sharing_start), WorkerCostChart.pct(p.sharing_end), mib(x.per_worker_kb), mib(x.base_kb)]
          end
        end
        Section.new(id: "worker-cost", title: "Memory per worker", charts: @fits.map { |fit| chart(*fit) },
          note: "Each bar is the whole tree's PSS under the same closed load at that many workers (mean of the last third of the " \
                "samples): solid is memory only one process holds (USS), shaded is the tree's share of pages several processes " \
                "hold, copy-on-write pages counted once. Per-worker cost is the slope of PSS = base + n x per-worker; sharing " \
                "is 1 - USS/RSS per worker right after boot, at the start of the load (after the settle probes) and at its end.",
          headings: ["server", "workload", "workers", "good req/s", "PSS", "USS", "RSS", "sharing at boot", "at load start", "at load end",
            "per worker", "base"], rows: rows)
      end

      private

      def mib(kb) = kb ? Support::Format.memory_kb(kb) : "-"

      def chart(m, x, points)
        points = points.reject(&:error)
        colour = @colors.call(m.server)
        height = TOP + points.size * (BAR + GAP) + 44
        scale = Svg::Scale.new(0, Svg.nice_max(points.map { |p| p.pss_kb.to_f / 1024 }.max.to_f), LEFT, RIGHT)
        legend, = Svg.legend([["private (USS)", colour], ["shared, counted once (PSS - USS)", "#{colour}55"]], x: LEFT, y: 18, width: RIGHT - LEFT)
        parts = [Svg.open(WIDTH, height, "#{m.server} #{m.workload}: PSS by worker count"), legend, *grid(scale, height)]
        points.each_with_index { |p, i| parts.concat(bar(p, TOP + i * (BAR + GAP), scale, colour)) }
        parts << Svg.text((LEFT + RIGHT) / 2.0, height - 8, "PSS of the tree under load, MiB " \
          "(≈ #{mib(x.base_kb)} + n × #{mib(x.per_worker_kb)})", anchor: "middle", weight: "600")
        parts << "</svg>"
        {title: "PSS by worker count: #{m.server} · #{m.workload}", svg: parts.join}
      end

      # A vertical line and its MiB figure at each tick of the scale.
      def grid(scale, height)
        scale.ticks.flat_map do |t|
          x = scale.call(t)
          [Svg.line(x, TOP, x, height - 40, stroke: "#e3e3e3"),
            Svg.text(x, height - 26, Svg.trim(t), anchor: "middle", fill: "#555")]
        end
      end

      # One worker count's bar at y: its label, USS solid, the rest of its PSS
      # shaded, and the total after it.
      def bar(p, y, scale, colour)
        label = p.refork ? "#{p.workers} workers, reforked" : "#{p.workers} worker#{"s" unless p.workers == 1}"
        private_mib = p.uss_kb.to_f / 1024
        shared_mib = [p.pss_kb.to_f / 1024 - private_mib, 0].max
        x0 = scale.call(0)
        x1 = scale.call(private_mib)
        x2 = scale.call(private_mib + shared_mib)
        [Svg.text(LEFT - 8, y + BAR - 5, label, anchor: "end"),
          rect(x0, y, x1 - x0, colour, 1, "#{label}: private #{private_mib.round(1)} MiB"),
          rect(x1, y, x2 - x1, colour, 0.33, "#{label}: shared #{shared_mib.round(1)} MiB"),
          Svg.text(x2 + 6, y + BAR - 5, "#{(private_mib + shared_mib).round(1)} MiB")]
      end

      def rect(x, y, width, colour, opacity, tip)
        %(<rect class="bar" x="#{Svg.n(x)}" y="#{Svg.n(y)}" width="#{Svg.n([width, 0].max)}" height="#{BAR}" ) +
          %(fill="#{colour}" fill-opacity="#{opacity}"><title>#{Svg.esc(tip)}</title></rect>)
      end
    end
  end
end
