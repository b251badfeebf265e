# frozen_string_literal: true

require_relative "../svg"

module Arena
  module Report
    module Svg
      # Horizontal bars, one group per category (a server), one bar per
      # series (throughput; or PSS beside RSS), with a whisker where the
      # series gives one (throughput: the median's 95% interval, the ± of the
      # summary table). Horizontal, because server labels are long and must
      # stay readable.
      class Bars
        BAR = 18
        GAP = 14
        WIDTH = 960

        # series: [{name:, values: [...], lows: [...]?, highs: [...]?, color:?, opacity:?, swatch:?}]
        # A series without a colour takes each category's (each server its
        # own); swatch: the colour its legend entry shows then.
        # width: the drawing's own width (a phone's copy is narrower, so its
        # text stays readable); css: a class beside "chart".
        def initialize(title:, categories:, series:, x_label:, format:, tick_format: Svg.method(:count_tick), colors: nil,
          width: WIDTH, css: nil)
          @title = title
          @categories = categories
          @series = series
          @x_label = x_label
          @format = format
          @tick_format = tick_format
          @colors = colors || categories.each_index.map { |i| Svg.color(i) }
          @width = width
          @css = css
        end

        # The label column is as wide as the widest label needs (measured,
        # Svg.text_width), up to LABEL_SHARE of the chart; a longer label is
        # broken into lines (Svg.wrap) and its group made tall enough for them.
        LABEL_SHARE = 0.42
        LINE = 14

        def render
          labels = label_lines
          left = (labels.flatten.map { |l| Svg.text_width(l) }.max.to_f + 16).clamp(60, @width * LABEL_SHARE + 16)
          legend, legend_h = legend_markup(left)
          top = 16 + legend_h
          heights = labels.map { |lines| [@series.size * (BAR + 4), lines.size * LINE + 4].max + GAP }
          plot_h = heights.sum
          axis = Svg.wrap(@x_label, max: @width - 24)
          height = top + plot_h + 34 + axis.size * 16
          right = @width - ((@width < 600) ? 56 : 90)
          scale = Scale.new(0, Svg.nice_max(maximum), left, right)
          parts = [Svg.open(@width, height, @title, css: @css), legend, grid(scale, top, plot_h)]
          y0 = top + GAP / 2
          @categories.each_with_index do |_category, ci|
            inner = heights[ci] - GAP
            parts << label(left - 8, y0 + inner / 2.0, labels[ci])
            bars_h = @series.size * (BAR + 4) - 4
            @series.each_with_index do |s, si|
              parts << bar(scale, s, ci, si, y0 + (inner - bars_h) / 2.0 + si * (BAR + 4))
            end
            y0 += heights[ci]
          end
          parts << Svg.line(left, top, left, top + plot_h, stroke: "#333")
          axis.each_with_index do |line, i|
            parts << Svg.text(@width / 2.0, top + plot_h + 40 + i * 16, line, anchor: "middle", weight: "600")
          end
          parts << "</svg>"
          parts.join
        end

        # Each category's label as the lines it is drawn in.
        def label_lines = @categories.map { |c| Svg.wrap(c, max: @width * LABEL_SHARE) }

        private

        # One line, or several centred on the group's middle.
        def label(x, middle, lines)
          first = middle - (lines.size - 1) * LINE / 2.0 + 4
          spans = lines.each_with_index.map { |l, i| %(<tspan x="#{Svg.n(x)}" y="#{Svg.n(first + i * LINE)}">#{Svg.esc(l)}</tspan>) }
          %(<text text-anchor="end" fill="#222">#{spans.join}</text>)
        end

        # The axis reaches the longest bar and the whiskers, but a whisker
        # past WHISKER_CAP times the longest bar is cut at the axis's end
        # (an arrow says it goes on): one wide interval must not squeeze
        # every bar into the left edge.
        WHISKER_CAP = 1.6

        def maximum
          bars = @series.flat_map { |s| s[:values] }.compact.max.to_f
          highs = @series.flat_map { |s| s[:highs] || [] }.compact
          [bars, *highs.map { |h| [h, bars * WHISKER_CAP].min }].max
        end

        def legend_markup(left)
          return ["", 0] if @series.size < 2
          entries = @series.each_with_index.map { |s, i| [s[:name], s[:color] || s[:swatch] || Svg.color(i)] }
          Svg.legend(entries, x: 10, y: 16, width: @width - 20).then { |markup, h| [markup, h + 4] }
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
            %(fill="#{colour}" fill-opacity="#{opacity}"><title>#{Svg.esc("#{@categories[ci]} #{s[:name]}: #{@format.call(value)}#{whisker_words(s, ci)}")}</title></rect>)
          lo = s[:lows]&.at(ci)
          hi = s[:highs]&.at(ci)
          end_x = scale.call(value)
          if lo && hi && hi > lo
            cut = hi > scale.hi
            out << whisker(scale.call(lo), scale.call([hi, scale.hi].min), y + BAR / 2.0, cut: cut)
            end_x = [end_x, scale.call([hi, scale.hi].min) + (cut ? 4 : 0)].max
          end
          out << Svg.text(end_x + 6, y + BAR - 5, @format.call(value), fill: "#222")
        end

        def whisker_words(s, ci)
          lo = s[:lows]&.at(ci)
          hi = s[:highs]&.at(ci)
          (lo && hi) ? " (#{s[:whisker] || "whisker"} #{@format.call(lo)}–#{@format.call(hi)})" : ""
        end

        def whisker(x1, x2, cy, cut: false)
          right = if cut
            %(<path class="cut" d="M#{Svg.n(x2 - 7)},#{Svg.n(cy - 5)} L#{Svg.n(x2)},#{Svg.n(cy)} L#{Svg.n(x2 - 7)},#{Svg.n(cy + 5)}" fill="none" stroke="#111" stroke-width="1.5"/>)
          else
            Svg.line(x2, cy - 6, x2, cy + 6, stroke: "#111", width: 1.5)
          end
          Svg.line(x1, cy, x2, cy, stroke: "#111", width: 1.5) + Svg.line(x1, cy - 6, x1, cy + 6, stroke: "#111", width: 1.5) + right
        end
      end
    end
  end
end
