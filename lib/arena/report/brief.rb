# frozen_string_literal: true

require_relative "../support/short"
require_relative "../verdicts/limits"
require_relative "brief_findings"
require_relative "brief_pick"
require_relative "labels"
require_relative "relative"
require_relative "rows"

module Arena
  module Report
    # What `arena run` prints when it is done, at most WIDTH columns: one
    # table per workload and scenario, the rows sorted (configs that served
    # by goodput, then those that failed or hung), each row led by its
    # verdict against the group's fastest in words, then its goodput, p99
    # and memory; then one line per finding (BriefFindings); then the pick
    # (BriefPick). Everything else (every column, the full configs, the
    # findings' reasons, the waiting/working split, the rounds) is in
    # report.md and report.html, and behind --verbose.
    #
    # The verdict reads like benchstat's and criterion's: "fastest"; "~ same
    # as the fastest (within ±X%)" when the paired interval of the ratio
    # holds 1 (X: how far it reaches); "0.61× (0.55–0.67)" when it does not;
    # a config that failed or hung says so, and is never the fastest.
    # Pure: document in, text out.
    class Brief
      WIDTH = 100
      GAP = "  "

      def initialize(document)
        @document = document
        @labels = Labels.new(document)
      end

      def render = "#{lines.join("\n")}\n"

      def lines = summary_lines + ["", *pick_lines]

      # The tables, a blank line after each, then a line per finding.
      def summary_lines
        tables = groups.flat_map { |(title, rows)| table(title, rows) + [""] }
        return ["no measurements"] if tables.empty?
        findings = BriefFindings.new(@document, labels: @labels).lines
        findings.empty? ? tables[0...-1] : tables + findings
      end

      # The pick, last (BriefPick).
      def pick_lines = BriefPick.new(@document, brief: self).lines

      # [[title, [[row, verdict words], ...]], ...] in the plan's order of
      # workloads and scenarios, each group's rows sorted.
      def groups
        @groups ||= Rows.grouped(@document).map do |(workload, scenario, variant), rows|
          sorted = Brief.sorted(rows)
          reference = sorted.find { |r| serving?(r) }
          values = reference ? Relative.of(sorted, baseline: reference.server) : {}
          sorted = Brief.by_ratio(sorted, values, reference)
          ["#{workload} · #{[scenario, variant].compact.join(" ")}", sorted.map { |r| [r, verdict(r, values[Relative.key(r)])] }]
        end
      end

      # The serving rows by the figure that leads them, the paired ratio
      # (a ratio of medians can order two rows the other way: 9.88k at 0.32×
      # above 9.87k at 0.36×); a row without one by its goodput against the
      # reference's; failed or hung rows stay last.
      def self.by_ratio(rows, values, reference)
        return rows unless reference&.rps&.positive?
        rows.each_with_index.sort_by do |r, i|
          [r.erroneous? ? 1 : 0, -(values[Relative.key(r)]&.ratio || r.rps / reference.rps), i]
        end.map(&:first)
      end

      # The verdict words of a row (Rows::Row) of the tables, or nil.
      def verdict_of(row) = groups.flat_map(&:last).find { |r, _| r.equal?(row) }&.last

      def label(row) = @labels.call(row.server)

      # Configs that served first, by goodput; those that failed or hung last.
      def self.sorted(rows) = rows.each_with_index.sort_by { |r, i| [r.erroneous? ? 1 : 0, -r.rps, i] }.map(&:first)

      # "fastest", "~ same as the fastest (within ±2.1%)", "0.61× (0.55–0.67)";
      # "unanswered", "failed: 12% errors"; "0.61× (2 rounds: no interval)".
      def self.words(row, value)
        return "unanswered" if row.unanswered?
        return "failed: #{Support::Short.pct(row.error_pct)} errors" if row.erroneous?
        return "alone in its group" if value.nil?
        return "fastest" if value.reference?
        diff = value.difference
        return "#{times(value.ratio)} (#{value.n} round#{"s" unless value.n == 1}: no interval)" unless diff.low_pct
        unless diff.significant? && !diff.equivalent?
          reach = [diff.low_pct.abs, diff.high_pct.abs].max
          return "~ same as the fastest (within #{Support::Short.plus_minus(reach)})"
        end
        "#{times(value.ratio)} (#{format("%.2f", 1 + diff.low_pct / 100)}–#{format("%.2f", 1 + diff.high_pct / 100)})"
      end

      def self.times(ratio) = "#{format("%.2f", ratio)}×"

      private

      def serving?(row) = !row.erroneous? && row.rps.positive?

      def verdict(row, value) = Brief.words(row, value)

      HEADINGS = ["vs the fastest", "good req/s", "p99", "memory"].freeze

      # Its heading (the group's title over the labels), then a line a row.
      def table(title, rows)
        cells = rows.map do |r, words|
          [label(r) + marks(r), words, goodput(r), Support::Short.duration_us(p99(r)), Support::Short.memory_kb(r.pss_peak_kb)]
        end
        head = [title, *HEADINGS]
        widths = head.each_index.map { |i| ([head] + cells).map { |c| c[i].size }.max }
        room = WIDTH - widths.drop(1).sum - GAP.size * (widths.size - 1)
        widths[0] = [widths[0], room].min
        ([head] + cells).map { |c| line(c, widths) }
      end

      # Only where the rounds' good responses support one (100).
      def p99(r) = (r.p99_us if r.samples.to_i >= Verdicts::Limits::PERCENTILE_MIN_SAMPLES.fetch(:p99))

      # The first column left, the verdict left, the figures right.
      def line(cells, widths)
        cells.each_with_index.map do |cell, i|
          text = fit(cell, widths[i])
          (i < 2) ? text.ljust(widths[i]) : text.rjust(widths[i])
        end.join(GAP).rstrip
      end

      def fit(text, width) = (text.size > width) ? "#{text[0, width - 1]}…" : text

      # A row's flags that change how its figures read, beside its name;
      # each has its line under Findings.
      def marks(r)
        words = r.flags & %w[stalled uneven under-concurrent batched loader-bound]
        words.empty? ? "" : " (#{words.join(", ")})"
      end

      # "14.2k ±1.2%": the median over the rounds and half its 95% interval.
      def goodput(r)
        iv = r.interval
        spread = (" #{Support::Short.plus_minus(iv.half_width_pct)}" if r.runs > 1 && iv&.measured?)
        "#{Support::Short.rate(r.rps)}#{spread}"
      end
    end
  end
end
