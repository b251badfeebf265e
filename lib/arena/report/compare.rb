# frozen_string_literal: true

require "terminal-table"

module Arena
  module Report
    # Two runs side by side: per server × workload × scenario × variant, the
    # change in throughput, p99 and PSS. A change no larger than the run-to-run
    # spread measured by the repeats (the min-max range, relative to the
    # median, of either run) is marked as noise. Where neither run repeated a
    # measurement there is no spread to measure, so a stated default band is
    # used instead and the row says so.
    class Compare
      DEFAULT_NOISE = 0.05
      METRICS = {
        "req/s" => ->(m) { m.dig("load", "throughput_rps")&.to_f },
        "p99" => ->(m) { m.dig("load", "latency_us", "p99")&.to_f },
        "PSS" => ->(m) { m.dig("probes", "pss_peak_kb")&.to_f }
      }.freeze
      FORMATS = {"req/s" => ->(v) { Format.rps(v) }, "p99" => ->(v) { Format.duration_us(v) }, "PSS" => ->(v) { Format.memory_kb(v) }}.freeze

      # One metric of one row: medians, the change and the band it is judged by.
      Change = Struct.new(:metric, :a, :b, :delta, :band, :measured, keyword_init: true) do
        def noise? = !delta.nil? && delta.abs <= band
      end

      Row = Struct.new(:key, :changes, keyword_init: true)

      attr_reader :only_a, :only_b

      def initialize(a, b, default_noise: DEFAULT_NOISE)
        @a = groups(a)
        @b = groups(b)
        @default_noise = default_noise
        @only_a = @a.keys - @b.keys
        @only_b = @b.keys - @a.keys
      end

      def rows
        (@a.keys & @b.keys).map do |key|
          Row.new(key: key, changes: METRICS.map { |name, read| change(name, @a[key].filter_map(&read), @b[key].filter_map(&read)) })
        end
      end

      def render
        list = rows
        out = +""
        if list.empty?
          out << "no measurement in common\n"
        else
          headings = ["server", "workload", "scenario", *METRICS.keys.flat_map { |m| ["#{m} A -> B", "change"] }]
          table = ::Terminal::Table.new(headings: headings, rows: list.map { |r| cells(r) })
          (3...headings.size).each { |i| table.align_column(i, :right) }
          out << "#{table}\n"
        end
        out << "only in A: #{@only_a.map { |k| label(k) }.join("; ")}\n" if @only_a.any?
        out << "only in B: #{@only_b.map { |k| label(k) }.join("; ")}\n" if @only_b.any?
        out << "noise: a change within the min-max spread of the repeats (either run) is marked \"noise\"; " \
          "where neither run repeated the measurement, a default band of ±#{pct(@default_noise)} is used (marked *)\n"
        out
      end

      private

      def groups(document)
        document.fetch("measurements", []).select { |m| m["load"].is_a?(Hash) }
          .group_by { |m| m.values_at("server", "workload", "scenario", "variant") }
      end

      def change(metric, a, b)
        ma = a.empty? ? nil : Rows.median(a)
        mb = b.empty? ? nil : Rows.median(b)
        delta = (ma && mb && ma.positive?) ? (mb - ma) / ma : nil
        spreads = [a, b].select { |v| v.size > 1 }.map { |v| spread(v) }
        Change.new(metric: metric, a: ma, b: mb, delta: delta, band: spreads.max || @default_noise, measured: spreads.any?)
      end

      def spread(values)
        median = Rows.median(values)
        median.positive? ? (values.max - values.min) / median : 0.0
      end

      def cells(row)
        server, workload, scenario, variant = row.key
        [server, workload, [scenario, variant].compact.join(" "), *row.changes.flat_map { |c| [values(c), verdict(c)] }]
      end

      def values(c)
        format = FORMATS.fetch(c.metric)
        "#{c.a ? format.call(c.a) : "-"} -> #{c.b ? format.call(c.b) : "-"}"
      end

      def verdict(c)
        return "n/a" if c.delta.nil?
        star = c.measured ? "" : "*"
        signed = "#{"+" if c.delta >= 0}#{pct(c.delta)}"
        c.noise? ? "#{signed} noise (±#{pct(c.band)}#{star})" : "#{signed}#{star}"
      end

      def pct(fraction) = "#{format("%.1f", 100 * fraction)}%"

      def label(key) = key.compact.join(" ")
    end
  end
end
