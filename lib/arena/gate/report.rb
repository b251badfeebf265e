# frozen_string_literal: true

module Arena
  class Gate
    # The gate's verdict as a few terminal lines: each failure and each change
    # forgiven as noise, then one line with the outcome (k6 prints a line per
    # threshold; a gate over many rows prints only the ones that matter).
    class Text
      MARKS = {fail: "FAIL", noise: "noise"}.freeze

      def initialize(gate) = @gate = gate

      def render
        out = "gate: #{@gate.thresholds.join(", ")}\n"
        if @gate.unmeasured.any?
          out << "gate: fewer than #{MIN_REPEATS} repeats on a side for #{count(@gate.unmeasured.size, "row")}: " \
            "judged against the default band ±#{Gate.pct(@gate.default_band)} (run both sides with --repeat #{MIN_REPEATS} or more)\n"
        end
        @gate.checks.each do |c|
          next unless MARKS.key?(c.verdict)
          out << "  #{MARKS[c.verdict]} #{Gate::Rendering.row(c)}: #{c.threshold.metric} #{Gate::Rendering.values(c)} " \
            "(#{Gate.signed(c.delta)}; threshold #{Gate.signed(c.threshold.limit)}, spread ±#{Gate.pct(c.band)}#{"*" unless c.measured})\n"
        end
        out << "gate: #{summary}\n"
      end

      private

      def summary
        fails = @gate.failures.size
        return "passed (#{count(@gate.checks.size, "check")}, none beyond threshold and spread)" if fails.zero?
        "failed: #{count(fails, "change")} beyond threshold and spread"
      end

      def count(n, noun) = "#{n} #{noun}#{"s" unless n == 1}"
    end

    # Markdown fit for a pull-request comment or $GITHUB_STEP_SUMMARY: every
    # check, worst first, and how the verdict was reached.
    class Markdown
      ORDER = {fail: 0, noise: 1, ok: 2, missing: 3}.freeze
      WORDS = {fail: "**fail**", noise: "noise", ok: "ok", missing: "n/a"}.freeze

      def initialize(gate, base:, head:)
        @gate = gate
        @base = base
        @head = head
      end

      def render
        fails = @gate.failures.size
        out = "### Arena benchmark gate: #{fails.zero? ? "passed" : "failed"}\n\n"
        out << case fails
        when 0 then "No change is beyond both its threshold and the run-to-run spread.\n\n"
        when 1 then "1 change is beyond both its threshold and the run-to-run spread.\n\n"
        else "#{fails} changes are beyond both their thresholds and the run-to-run spread.\n\n"
        end
        out << "| verdict | server | workload | scenario | metric | base | head | change | threshold | spread | runs |\n"
        out << "|---|---|---|---|---|---|---|---|---|---|---|\n"
        @gate.checks.sort_by.with_index { |c, i| [ORDER.fetch(c.verdict), i] }.each { |c| out << line(c) }
        out << "\nBase: `#{@base}`; head: `#{@head}`. Thresholds: #{@gate.thresholds.map { |t| "`#{t}`" }.join(", ")}.\n\n"
        out << "A change fails only when it is beyond its threshold in the bad direction and beyond the spread: " \
          "the min-max range of the repeats relative to their median, the larger of the two runs, " \
          "measured when both sides ran with `--repeat #{MIN_REPEATS}` or more.\n"
        if @gate.missing?
          out << "\nn/a: the figure is missing on a side, or its responses are too few for the percentile (p99 needs 100).\n"
        end
        if @gate.unmeasured.any?
          out << "\n> Fewer than #{MIN_REPEATS} repeats on a side for #{@gate.unmeasured.size} of #{@gate.compare.pairs.size} rows " \
            "(marked \\*): judged against the default band ±#{Gate.pct(@gate.default_band)} instead of a measured spread.\n"
        end
        out
      end

      private

      def line(c)
        change = c.delta ? Gate.signed(c.delta) : "-"
        spread = c.delta ? "±#{Gate.pct(c.band)}#{"\\*" unless c.measured}" : "-"
        cells = [WORDS.fetch(c.verdict), escape(c.pair.label), escape(c.pair.workload),
          escape([c.pair.scenario, c.pair.variant].compact.join(" ")), c.threshold.metric,
          Report::Compare.format(c.threshold.metric, c.a), Report::Compare.format(c.threshold.metric, c.b),
          change, Gate.signed(c.threshold.limit), spread, c.runs.join("/")]
        "| #{cells.join(" | ")} |\n"
      end

      def escape(text) = text.to_s.gsub("|", "\\|")
    end

    module Rendering
      module_function

      def row(c) = [c.pair.label, c.pair.workload, c.pair.scenario, c.pair.variant].compact.join(" ")

      def values(c)
        "#{Report::Compare.format(c.threshold.metric, c.a)} -> #{Report::Compare.format(c.threshold.metric, c.b)}"
      end
    end
  end
end
