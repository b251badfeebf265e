# frozen_string_literal: true

require_relative "../svg"

module Arena
  module Report
    module Svg
      # Lines on x/y axes, either of them logarithmic, with point markers,
      # labelled marks (a knee, a break point) and reference lines (an SLO, the
      # moment of a kill). Points with a nil y break the line.
      class Lines
        # series:  [{name:, points: [[x, y], ...], color:?}]
        # marks:   [{x:, y:, label:, color:?}]      a ringed point with a label
        # vlines:  [{x:, label:}]; hlines: [{y:, label:}]
        # x_ticks: [[value, label], ...] in place of computed ticks
        # x_range: [lo, hi] fixes the x axis (panels that must line up)
        # y_integer: counts (errors, processes) get whole-number ticks only
        def initialize(title:, series:, x_label:, y_label:, x_format:, y_format:, log_x: false, log_y: false,
          x_ticks: nil, marks: [], vlines: [], hlines: [], width: 960, height: 380, y_zero: true, legend: true,
          x_range: nil, y_integer: false, css: nil)
          @title = title
          @series = series
          @labels = [x_label, y_label]
          @formats = [x_format, y_format]
          @log = [log_x, log_y]
          @x_ticks = x_ticks
          @marks = marks
          @vlines = vlines
          @hlines = hlines
          @size = [width, height]
          @y_zero = y_zero
          @show_legend = legend
          @x_range = x_range
          @y_integer = y_integer
          @css = css
        end

        def render
          width, height = @size
          legend, legend_h = legend_markup(width)
          left = 78
          right = width - 24
          top = 14 + legend_h
          bottom = height - 46
          xs, ys = domains
          sx = scale(xs, left, right, @log[0], zero: false)
          sy = scale(ys, bottom, top, @log[1], zero: @y_zero)
          parts = [Svg.open(width, height, @title, css: @css), legend, axes(sx, sy, left, right, top, bottom)]
          @hlines.each { |h| parts << hline(sx, sy, h, left, right) }
          @vlines.each { |v| parts << vline(sx, v, top, bottom) }
          @series.each_with_index { |s, i| parts << path(sx, sy, s, s[:color] || Svg.color(i)) }
          placed = []
          @marks.each { |m| parts << mark(sx, sy, m, placed) }
          parts << Svg.text((left + right) / 2.0, height - 8, @labels[0], anchor: "middle", weight: "600")
          parts << Svg.text(16, (top + bottom) / 2.0, @labels[1], anchor: "middle", weight: "600", rotate: -90)
          parts << "</svg>"
          parts.join
        end

        private

        def domains
          points = @series.flat_map { |s| s[:points] }.reject { |_, y| y.nil? }
          xs = @x_range || (points.map(&:first) + @vlines.map { |v| v[:x] } + (@x_ticks || []).map(&:first))
          ys = points.map(&:last) + @hlines.map { |h| h[:y] } + @marks.map { |m| m[:y] }
          [xs.compact.map(&:to_f), ys.compact.map(&:to_f)]
        end

        def scale(values, from, to, log, zero:)
          return Scale.new(*Svg.log_bounds(values), from, to, log: true) if log
          return Scale.new(values.min.to_f, values.max.to_f, from, to) if @x_range && from < to
          lo = zero ? [values.min.to_f, 0].min : values.min.to_f
          hi = values.max.to_f
          hi = zero ? Svg.nice_max(hi) : hi
          Scale.new(lo, (hi > lo) ? hi : lo + 1, from, to)
        end

        def legend_markup(width)
          return ["", 0] unless @show_legend && @series.size > 1
          entries = @series.each_with_index.map { |s, i| [s[:name], s[:color] || Svg.color(i)] }
          Svg.legend(entries, x: 78, y: 16, width: width - 100).then { |markup, h| [markup, h + 6] }
        end

        def axes(sx, sy, left, right, top, bottom)
          out = +""
          y_ticks = sy.ticks
          y_ticks = y_ticks.select { |t| t == t.round } if @y_integer
          y_ticks.each do |t|
            y = sy.call(t)
            out << Svg.line(left, y, right, y, stroke: "#e3e3e3") << Svg.text(left - 6, y + 4, @formats[1].call(t), anchor: "end", fill: "#555")
          end
          (@x_ticks || sx.ticks.map { |t| [t, @formats[0].call(t)] }).each do |t, label|
            x = sx.call(t)
            out << Svg.line(x, top, x, bottom, stroke: "#f0f0f0") << Svg.text(x, bottom + 16, label, anchor: "middle", fill: "#555")
          end
          out << Svg.line(left, bottom, right, bottom, stroke: "#333") << Svg.line(left, top, left, bottom, stroke: "#333")
        end

        def path(sx, sy, series, colour)
          segments = series[:points].chunk_while { |a, b| !a[1].nil? && !b[1].nil? }.map { |seg| seg.reject { |_, y| y.nil? } }
          label = Svg.esc(series[:name])
          out = segments.reject(&:empty?).map do |seg|
            d = seg.each_with_index.map { |(x, y), i| "#{i.zero? ? "M" : "L"}#{Svg.n(sx.call(x))},#{Svg.n(sy.call(y))}" }.join(" ")
            %(<path class="series" d="#{d}" fill="none" stroke="#{colour}" stroke-width="2.2" stroke-linejoin="round"><title>#{label}</title></path>)
          end
          series[:points].each do |x, y|
            next if y.nil?
            out << %(<circle class="point" cx="#{Svg.n(sx.call(x))}" cy="#{Svg.n(sy.call(y))}" r="3" fill="#{colour}"><title>#{label}: #{Svg.esc(@formats[0].call(x))}, #{Svg.esc(@formats[1].call(y))}</title></circle>)
          end
          out.join
        end

        # A ring on the point and its label beside it; a label that would
        # overprint one already placed moves up, with a leader line.
        def mark(sx, sy, m, placed)
          x = sx.call(m[:x])
          y = sy.call(m[:y])
          colour = m[:color] || "#111"
          anchor = (x > @size[0] * 0.7) ? "end" : "start"
          tx = x + ((anchor == "end") ? -10 : 10)
          ty = y - 10
          ty -= 17 while placed.any? { |px, py| (py - ty).abs < 16 && (px - tx).abs < 220 }
          placed << [tx, ty]
          leader = (ty < y - 12) ? Svg.line(x, y - 7, tx, ty + 3, stroke: colour, width: 1) : ""
          %(<circle cx="#{Svg.n(x)}" cy="#{Svg.n(y)}" r="7" fill="none" stroke="#{colour}" stroke-width="2.5"/>) + leader +
            Svg.text(tx, ty, m[:label], anchor: anchor, weight: "600", fill: colour)
        end

        def vline(sx, v, top, bottom)
          x = sx.call(v[:x])
          Svg.line(x, top, x, bottom, stroke: v[:color] || "#c0392b", width: 1.5, dash: "5 4") +
            Svg.text(x + 5, top + 12, v[:label], fill: v[:color] || "#c0392b", weight: "600")
        end

        def hline(sx, sy, h, left, right)
          y = sy.call(h[:y])
          Svg.line(left, y, right, y, stroke: "#888", width: 1.2, dash: "6 4") + Svg.text(right - 4, y - 5, h[:label], anchor: "end", fill: "#666")
        end
      end
    end
  end
end
