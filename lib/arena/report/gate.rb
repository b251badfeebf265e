# frozen_string_literal: true

require_relative "../stats/difference"
require_relative "../support/format"
require_relative "../verdicts/gate"

module Arena
  module Report
    # The gate's verdict as a few terminal lines: each failure, each check it
    # could not judge and each change beyond its threshold that the test could
    # not tell from noise, then one line with the outcome (k6 prints a line
    # per threshold; a gate over many rows prints only the ones that matter).
    class GateText
      MARKS = {fail: "FAIL", noise: "not distinguishable", cannot_judge: "cannot judge"}.freeze

      def initialize(gate) = @gate = gate

      def render
        out = "gate: #{@gate.thresholds.join(", ")} (a change fails when beyond its threshold and significant: " \
          "#{Stats::DifferenceMethod::METHOD} at #{@gate.level})\n"
        @gate.checks.each do |c|
          next unless MARKS.key?(c.outcome)
          out << "  #{MARKS[c.outcome]} #{Report::GateRendering.row(c)}#{Report::GateRendering.what(c)}: #{c.verdict.reason.delete_prefix("not distinguishable here: ")}\n"
        end
        out << "gate: #{summary}\n"
      end

      private

      def summary
        fails = @gate.failures.size
        unjudged = @gate.unjudged.size
        parts = []
        parts << "#{count(fails, "change")} beyond threshold#{" and significant" if @gate.failures.all? { |c| c.threshold&.unit == :pct }}" if fails.positive?
        if unjudged.positive?
          parts << "#{count(unjudged, "check")} could not be judged#{@gate.allow_missing? ? " (allowed by --allow-missing)" : " (--allow-missing to let them pass)"}"
        end
        return "failed: #{parts.join("; ")}" if @gate.failed?
        "passed (#{count(@gate.checks.size, "check")}, none significant beyond its threshold#{"; #{parts.join}" if parts.any?})"
      end

      def count(n, noun) = "#{n} #{noun}#{"s" unless n == 1}"
    end

    # Markdown fit for a pull-request comment or $GITHUB_STEP_SUMMARY: every
    # check, worst first, and how the verdict was reached.
    class GateMarkdown
      ORDER = {fail: 0, cannot_judge: 1, noise: 2, ok: 3}.freeze
      WORDS = {fail: "**fail**", cannot_judge: "**cannot judge**", noise: "not distinguishable", ok: "ok"}.freeze

      def initialize(gate, base:, head:)
        @gate = gate
        @base = base
        @head = head
      end

      def render
        out = "### Arena benchmark gate: #{@gate.failed? ? "failed" : "passed"}\n\n"
        fails = @gate.failures.size
        out << case fails
        when 0 then "No change is both beyond its threshold and significant.\n\n"
        when 1 then "1 change is beyond its threshold and significant.\n\n"
        else "#{fails} changes are beyond their thresholds and significant.\n\n"
        end
        if @gate.unjudged.any?
          out << "#{@gate.unjudged.size} check(s) could not be judged#{" (allowed by `--allow-missing`)" if @gate.allow_missing?}.\n\n"
        end
        out << "| verdict | server | workload | scenario | metric | base | head | change | threshold | why | runs |\n"
        out << "|---|---|---|---|---|---|---|---|---|---|---|\n"
        @gate.checks.sort_by.with_index { |c, i| [ORDER.fetch(c.outcome), i] }.each { |c| out << line(c) }
        out << "\nBase: `#{@base}`; head: `#{@head}`. Thresholds: #{@gate.thresholds.map { |t| "`#{t}`" }.join(", ")}.\n\n"
        out << "A change fails when it is beyond its threshold in the bad direction and the difference is significant " \
          "(#{Stats::DifferenceMethod::METHOD} on the runs of each side, at #{@gate.level}; it needs 3 runs a side; unpaired: " \
          "base and head are separate runs, so the machine's drift between them stays in the test). " \
          "An absolute threshold (`pp`, percentage points of errors) is judged on the medians alone. " \
          "A check that cannot be judged fails the gate unless `--allow-missing` is given.\n"
        out
      end

      private

      def line(c)
        metric = c.threshold&.metric || "-"
        change = if c.delta.nil? then "-"
        elsif c.threshold.absolute? then Verdicts::Gate.signed_pp(c.delta)
        else Verdicts::Gate.signed(c.delta)
        end
        cells = [WORDS.fetch(c.outcome), escape(c.pair.label), escape(c.pair.workload),
          escape([c.pair.scenario, c.pair.variant].compact.join(" ")), metric, value(c, c.a), value(c, c.b),
          change, c.threshold&.to_s&.split(":", 2)&.last || "-", escape(c.verdict.reason.to_s), c.runs.join("/")]
        "| #{cells.join(" | ")} |\n"
      end

      def value(c, v)
        return "-" if v.nil?
        c.threshold.absolute? ? "#{format("%.2f", v)}%" : Support::Format.metric(c.threshold.metric, v)
      end

      def escape(text) = text.to_s.gsub("|", "\\|")
    end

    module GateRendering
      # extend self, not module_function: Rendering.row then runs the methods mutant mutates
      extend self

      def row(c) = [c.pair.label, c.pair.workload, c.pair.scenario, c.pair.variant].compact.join(" ")

      def what(c)
        return "" unless c.threshold
        values = if c.delta.nil? then ""
        elsif c.threshold.absolute? then ""
        else " #{Support::Format.metric(c.threshold.metric, c.a)} -> #{Support::Format.metric(c.threshold.metric, c.b)} (#{Verdicts::Gate.signed(c.delta)}; threshold #{Verdicts::Gate.signed(c.threshold.limit)})"
        end
        " #{c.threshold.metric}#{values}"
      end
    end
  end
end
