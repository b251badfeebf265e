# frozen_string_literal: true

module Arena
  module Report
    module Svg
      # Horizontal bars, one group per category (a server), one bar per
      # series (throughput; or PSS beside RSS), with a min-max whisker when a
      # bar stands for repeated runs. Horizontal, because server labels are
      # long and must stay readable.
      class Bars
        BAR = 18
        GAP = 14
        WIDTH = 960

        # series: [{name:, values: [...], mins: [...]?, maxs: [...]?, color:?}]
        # One series is coloured by category (each server its colour).
        def initialize(title:, categories:, series:, x_label:, format:, tick_format: Svg.method(:count_tick), colors: nil)
          @title = title
          @categories = categories
          @series = series
          @x_label = x_label
          @format = format
          @tick_format = tick_format
          @colors = colors || categories.each_index.map { |i| Svg.color(i) }
        end

        def render
          left = (@categories.map { |c| c.to_s.size }.max.to_i * 6.7 + 20).clamp(120, 420)
          legend, legend_h = legend_markup(left)
          top = 16 + legend_h
          group_h = @series.size * (BAR + 4) + GAP
          plot_h = @categories.size * group_h
          height = top + plot_h + 52
          right = WIDTH - 90
          scale = Scale.new(0, Svg.nice_max(maximum), left, right)
          parts = [Svg.open(WIDTH, height, @title), legend, grid(scale, top, plot_h)]
          @categories.each_with_index do |category, ci|
            y0 = top + ci * group_h + GAP / 2
            parts << Svg.text(left - 8, y0 + (group_h - GAP) / 2.0 + 4, category, anchor: "end")
            @series.each_with_index do |s, si|
              parts << bar(scale, s, ci, si, y0 + si * (BAR + 4))
            end
          end
          parts << Svg.line(left, top, left, top + plot_h, stroke: "#333")
          parts << Svg.text((left + right) / 2.0, height - 10, @x_label, anchor: "middle", weight: "600")
          parts << "</svg>"
          parts.join
        end

        private

        def maximum
          @series.flat_map { |s| (s[:maxs] || []) + s[:values] }.compact.max.to_f
        end

        def legend_markup(left)
          return ["", 0] if @series.size < 2
          entries = @series.each_with_index.map { |s, i| [s[:name], s[:color] || Svg.color(i)] }
          Svg.legend(entries, x: left, y: 16, width: WIDTH - left - 20).then { |markup, h| [markup, h + 4] }
        end

        def grid(scale, top, plot_h)
          scale.ticks.map do |t|
            x = scale.call(t)
            Svg.line(x, top, x, top + plot_h, stroke: "#e3e3e3") +
              Svg.text(x, top + plot_h + 16, @tick_format.call(t), anchor: "middle", fill: "#555")
          end.join
        end

        def bar(scale, s, ci, si, y)
          value = s[:values][ci]
          return Svg.text(scale.call(0) + 6, y + BAR - 5, "not measured", fill: "#888") if value.nil?
          colour = s[:color] || @colors[ci]
          opacity = s[:opacity] || 1
          x0 = scale.call(0)
          out = %(<rect class="bar" x="#{Svg.n(x0)}" y="#{Svg.n(y)}" width="#{Svg.n([scale.call(value) - x0, 1].max)}" height="#{BAR}" ) +
            %(fill="#{colour}" fill-opacity="#{opacity}"><title>#{Svg.esc("#{@categories[ci]} #{s[:name]}: #{@format.call(value)}")}</title></rect>)
          lo = s[:mins]&.at(ci)
          hi = s[:maxs]&.at(ci)
          end_x = scale.call(value)
          if lo && hi && hi > lo
            out << whisker(scale.call(lo), scale.call(hi), y + BAR / 2.0)
            end_x = [end_x, scale.call(hi)].max
          end
          out << Svg.text(end_x + 6, y + BAR - 5, @format.call(value), fill: "#222")
        end

        def whisker(x1, x2, cy)
          Svg.line(x1, cy, x2, cy, stroke: "#111", width: 1.5) +
            Svg.line(x1, cy - 6, x1, cy + 6, stroke: "#111", width: 1.5) +
            Svg.line(x2, cy - 6, x2, cy + 6, stroke: "#111", width: 1.5)
        end
      end
    end
  end
end
