# frozen_string_literal: true

require "terminal-table"
require_relative "../stats"
require_relative "../support/format"
require_relative "../verdicts/comparison"
require_relative "rows"

module Arena
  module Report
    # Two runs side by side: per server × workload × scenario × variant, the
    # change in throughput, p99 and PSS. A change is called real only where
    # the significance test (Stats.difference: Welch's t on log figures at
    # LEVEL, over the runs of each side: unpaired, since A and B are separate
    # runs and no round holds both; Stats.paired needs figures measured side
    # by side) says so; otherwise it is "not
    # distinguishable here". With fewer than 3 runs a side there is no test:
    # the change is shown, marked *, and called nothing. (A min-max band, as
    # before, called a change between identical runs real about half the time
    # at one run each, and grew wider, so blinder, with every repeat.)
    #
    # A server whose settings differ between the runs (`puma:threads=8` in A,
    # `puma:threads=4` in B) is still paired when it is the only config of
    # that server on both sides: a config change is what a comparison is for.
    class Compare
      LEVEL = 0.05

      TABLE = {"req/s" => "good_rps", "p99" => "p99", "PSS" => "pss"}.freeze
      # One metric of one row: medians, the change and the test's result.
      Change = Struct.new(:metric, :a, :b, :delta, :difference, keyword_init: true)

      class Change
        # The test ran (3 runs a side, figures above 0).
        def measured = difference&.measured? || false

        def real? = !delta.nil? && measured && difference.significant?

        def noise? = !delta.nil? && measured && !difference.significant?
      end

      Row = Struct.new(:key, :changes, keyword_init: true)

      attr_reader :only_a, :only_b, :pairs

      def initialize(a, b, level: LEVEL)
        @level = level
        match(groups(a), groups(b))
      end

      def rows
        @pairs.map do |pair|
          Row.new(key: pair.key, changes: TABLE.map { |name, metric| change(name, pair.values(metric, :a), pair.values(metric, :b)) })
        end
      end

      def render
        list = rows
        out = +""
        if list.empty?
          out << "no measurement in common\n"
        else
          headings = ["server", "workload", "scenario", *TABLE.keys.flat_map { |m| ["#{m} A -> B", "change"] }]
          table = ::Terminal::Table.new(headings: headings, rows: list.map { |r| cells(r) })
          (3...headings.size).each { |i| table.align_column(i, :right) }
          out << "#{table}\n"
        end
        out << "only in A: #{@only_a.map { |k| label(k) }.join("; ")}\n" if @only_a.any?
        out << "only in B: #{@only_b.map { |k| label(k) }.join("; ")}\n" if @only_b.any?
        out << "a change is real where #{Stats::DifferenceMethod::METHOD} over the runs of each side says so at #{@level} " \
          "(unpaired: A and B are separate runs, so the machine's drift between them stays in the test); " \
          "else \"not distinguishable\"; * fewer than 3 runs a side: not tested\n"
        out
      end

      private

      # A Results::Document (Source#view, or several runs pooled).
      def groups(document)
        document.measured.reject(&:summary?).group_by { |m| [m.server, m.workload, m.scenario, m.variant] }
      end

      # Same label on both sides first; then, per server name × workload ×
      # scenario × variant, the one config left on each side.
      def match(a, b)
        @pairs = (a.keys & b.keys).map { |k| pair(k[0], k, a[k], b[k]) }
        rest_a = a.keys - b.keys
        rest_b = b.keys - a.keys
        by_name = ->(keys) { keys.group_by { |k| [server_name(k[0]), *k[1..]] } }
        left_a = by_name.call(rest_a)
        left_b = by_name.call(rest_b)
        (left_a.keys & left_b.keys).each do |name_key|
          next unless left_a[name_key].size == 1 && left_b[name_key].size == 1
          ka = left_a[name_key].first
          kb = left_b[name_key].first
          @pairs << pair("#{ka[0]} -> #{kb[0]}", ka, a[ka], b[kb])
          rest_a.delete(ka)
          rest_b.delete(kb)
        end
        @only_a = rest_a
        @only_b = rest_b
      end

      def pair(label, key, a, b) = Verdicts::Comparison::Pair.new(label: label, workload: key[1], scenario: key[2], variant: key[3], a: a, b: b)

      def server_name(label) = label.to_s.split(":", 2).first

      def change(metric, a, b)
        ma = a.empty? ? nil : Rows.median(a)
        mb = b.empty? ? nil : Rows.median(b)
        delta = (ma && mb && ma.positive?) ? (mb - ma) / ma : nil
        difference = delta && Stats.difference(a, b, level: @level)
        Change.new(metric: metric, a: ma, b: mb, delta: delta, difference: difference)
      end

      def cells(row)
        server, workload, scenario, variant = row.key
        [server, workload, [scenario, variant].compact.join(" "), *row.changes.flat_map { |c| [values(c), verdict(c)] }]
      end

      def values(c)
        metric = TABLE.fetch(c.metric)
        "#{Support::Format.metric(metric, c.a)} -> #{Support::Format.metric(metric, c.b)}"
      end

      def verdict(c)
        return "n/a" if c.delta.nil?
        signed = "#{"+" if c.delta >= 0}#{pct(c.delta)}"
        return "#{signed}*" unless c.measured
        c.real? ? "#{signed} (p=#{format("%.2g", c.difference.p_value)})" : "#{signed} not distinguishable"
      end

      def pct(fraction) = "#{format("%.1f", 100 * fraction)}%"

      def label(key) = key.compact.join(" ")
    end
  end
end
