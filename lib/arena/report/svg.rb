# frozen_string_literal: true

require "cgi"
require_relative "../support/format"

module Arena
  module Report
    # Charts drawn as inline SVG by Ruby, so report.html needs no script, no
    # library and no network. This file holds what every chart shares: the
    # colours, the scales and their ticks; Svg::Bars and Svg::Lines draw.
    module Svg
      # Okabe & Ito's palette (distinguishable with the common colour-vision
      # deficiencies, readable on white; their yellow left out), then Paul
      # Tol's muted colours not close to them: one colour each for every
      # server Arena knows, with a few to spare (Colors).
      PALETTE = %w[#0072B2 #E69F00 #009E73 #D55E00 #CC79A7 #56B4E9 #332288 #999933 #882255 #44AA99 #7F4F24
        #444444 #AA4499 #117733 #DDCC77].freeze
      FONT = "font-family=\"system-ui,-apple-system,'Segoe UI',Roboto,sans-serif\""

      module_function

      def color(index) = PALETTE[index % PALETTE.size]

      # Advance widths (in em) of DejaVu Sans, the widest of the fonts the
      # page asks for: a width measured with them is never short, so a label
      # given that room is never cut.
      WIDTHS = {
        "il.,:;'|!" => 0.32, "fjrt()[]- " => 0.40, "sz/\\\"" => 0.53, "abcdeghknopquvxy_?" => 0.63, "0123456789$#" => 0.64,
        "=+<>~" => 0.84, "mw" => 0.98, "MW@%" => 1.0
      }.flat_map { |chars, w| chars.chars.map { |c| [c, w] } }.to_h.freeze

      # The width in pixels of one line of text at `size` px (capitals and
      # anything not listed count as 0.75 em).
      def text_width(text, size: 12) = text.to_s.each_char.sum { |c| WIDTHS.fetch(c) { (c =~ /[A-Z]/) ? 0.72 : 0.75 } } * size

      # A label too wide for `max` pixels, broken after a comma, colon,
      # equals sign or space into lines that fit; a run without any of them
      # that is still too wide is broken where it must.
      def wrap(text, max:, size: 12)
        pieces = text.to_s.scan(/[^,:= ]+[,:= ]?|[,:= ]/).flat_map { |piece| hard_break(piece, max: max, size: size) }
        pieces.each_with_object([+""]) do |piece, lines|
          if !lines.last.empty? && text_width(lines.last + piece, size: size) > max
            lines << piece.lstrip
          else
            lines.last << piece
          end
        end.map(&:rstrip)
      end

      def hard_break(piece, max:, size:)
        return [piece] if text_width(piece, size: size) <= max
        piece.each_char.each_with_object([+""]) do |c, parts|
          parts << +"" if text_width(parts.last + c, size: size) > max
          parts.last << c
        end
      end

      def esc(text) = CGI.escapeHTML(text.to_s)

      def n(value) = format("%.1f", value)

      def open(width, height, title, css: nil)
        %(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 #{width} #{height}" width="#{width}" height="#{height}" ) +
          %(role="img" class="#{["chart", css].compact.join(" ")}" #{FONT} font-size="12"><title>#{esc(title)}</title>) +
          %(<rect width="#{width}" height="#{height}" fill="#fff"/>)
      end

      def text(x, y, content, anchor: "start", size: nil, weight: nil, fill: "#222", rotate: nil)
        attrs = %(x="#{n(x)}" y="#{n(y)}" text-anchor="#{anchor}" fill="#{fill}")
        attrs << %( font-size="#{size}") if size
        attrs << %( font-weight="#{weight}") if weight
        attrs << %( transform="rotate(#{rotate} #{n(x)} #{n(y)})") if rotate
        %(<text #{attrs}>#{esc(content)}</text>)
      end

      def line(x1, y1, x2, y2, stroke: "#999", width: 1, dash: nil)
        %(<line x1="#{n(x1)}" y1="#{n(y1)}" x2="#{n(x2)}" y2="#{n(y2)}" stroke="#{stroke}" stroke-width="#{width}") +
          (dash ? %( stroke-dasharray="#{dash}") : "") + "/>"
      end

      # Legend entries in a row (wrapping), from the top-left corner given.
      # Returns the markup and the height used.
      def legend(entries, x:, y:, width:)
        parts = []
        cx = x
        cy = y
        entries.each do |label, colour|
          w = 22 + text_width(label) + 18
          if cx + w > x + width && cx > x
            cx = x
            cy += 18
          end
          parts << %(<rect x="#{n(cx)}" y="#{n(cy - 9)}" width="14" height="10" rx="2" fill="#{colour}"/>)
          parts << text(cx + 19, cy, label)
          cx += w
        end
        [parts.join, cy - y + 18]
      end

      # Axis labels: short, no needless decimals ("100ms", "2.5k").
      def duration_tick(us)
        v = us.to_f
        if v >= 1_000_000 then "#{trim(v / 1e6)}s"
        elsif v >= 1000 then "#{trim(v / 1e3)}ms"
        else "#{trim(v)}µs"
        end
      end

      def count_tick(value)
        v = value.to_f
        return "#{trim(v / 1e6)}M" if v >= 1_000_000
        return "#{trim(v / 1e3)}k" if v >= 10_000
        (v >= 1000) ? Support::Format.rps(v) : trim(v)
      end

      def trim(v) = (v == v.round) ? v.round.to_s : format("%.2f", v).sub(/0+\z/, "").sub(/\.\z/, "")

      # Maps a domain onto pixels, linearly or by logarithm.
      class Scale
        attr_reader :lo, :hi

        def initialize(lo, hi, from, to, log: false)
          @log = log
          @lo = log ? [lo, 1e-9].max : lo
          @hi = if hi > @lo
            hi
          else
            @lo + (log ? @lo * 9 : 1)
          end
          @from = from
          @to = to
        end

        def log? = @log

        def call(value)
          v = value.to_f
          v = [v, @lo].max if @log
          share = @log ? (Math.log10(v) - Math.log10(@lo)) / (Math.log10(@hi) - Math.log10(@lo)) : (v - @lo) / (@hi - @lo)
          @from + share * (@to - @from)
        end

        def ticks
          @log ? Svg.log_ticks(@lo, @hi) : Svg.linear_ticks(@lo, @hi)
        end
      end

      # Round steps of 1, 2 or 5 times a power of ten, about five of them.
      def nice_step(span, count = 5)
        raw = span / count.to_f
        raw = 1.0 if raw <= 0
        power = 10**Math.log10(raw).floor
        [1, 2, 5, 10].map { |m| m * power }.find { |s| s >= raw }
      end

      def nice_max(max) = max.positive? ? (max / nice_step(max)).ceil * nice_step(max) : 1

      def linear_ticks(lo, hi)
        step = nice_step(hi - lo)
        first = (lo / step).ceil * step
        (0..50).map { |i| first + i * step }.take_while { |t| t <= hi + step * 1e-9 }
      end

      def log_ticks(lo, hi)
        decades = (Math.log10(lo).floor..Math.log10(hi).ceil).map { |k| 10.0**k }
        steps = (Math.log10(hi) - Math.log10(lo) <= 2.5) ? [1, 2, 5] : [1]
        decades.flat_map { |d| steps.map { |m| d * m } }.select { |t| t.between?(lo * 0.999, hi * 1.001) }
      end

      # The bounds of a log axis: the 1-2-5 steps just around the data.
      def log_bounds(values)
        positive = values.compact.select(&:positive?)
        return [1.0, 10.0] if positive.empty?
        steps = (Math.log10(positive.min).floor - 1..Math.log10(positive.max).ceil).flat_map { |k| [1, 2, 5].map { |m| m * 10.0**k } }
        lo = steps.select { |s| s <= positive.min * 1.0001 }.max
        hi = steps.find { |s| s >= positive.max * 0.9999 }
        (hi > lo) ? [lo, hi] : [lo, lo * 10]
      end
    end
  end
end
