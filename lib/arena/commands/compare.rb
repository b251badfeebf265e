# frozen_string_literal: true

require_relative "../report/compare"
require_relative "../report/gate"
require_relative "../report/source"
require_relative "../results/document"
require_relative "../verdicts/gate"
require_relative "base"

module Arena
  module Commands
    # `arena compare A B [--fail-on SPEC]`: what changed between two runs, and
    # whether the change is larger than the runs' own noise. With --fail-on it
    # is a CI gate: exit 1 when a change is beyond its threshold and
    # significant, or when a check cannot be judged (unless --allow-missing),
    # 0 otherwise, 2 for bad input (so a broken input never reads as a
    # regression, nor as a pass).
    class Compare < Base
      USAGE = "usage: arena compare A B [--fail-on 'good_rps:-5%,p99:+10%,errors:+0.1pp'] [--allow-missing] [--markdown FILE] " \
        "(two run directories or results files; several runs of one side separated by commas)"
      Side = Struct.new(:path, :document, keyword_init: true)

      def call
        options.parse!(@argv)
        raise UsageError, USAGE unless @argv.size == 2
        thresholds = Verdicts::Gate::Threshold.parse_list(@fail_on) if @fail_on
        a, b = sources
        compare = Arena::Report::Compare.new(a.document, b.document)
        @out.puts "A: #{a.path}", "B: #{b.path}"
        @out.print compare.render
        return 0 unless thresholds
        gate(compare, thresholds)
      end

      private

      def options
        OptionParser.new do |parser|
          parser.banner = USAGE
          parser.on("--fail-on SPEC", "gate: METRIC:±N% or errors:±Npp items, e.g. 'good_rps:-5%,p99:+10%,errors:+0.1pp'") { |spec| @fail_on = spec }
          parser.on("--allow-missing", "gate: pass checks it cannot judge (a row missing from B, too few responses for a percentile, too few runs)") { @allow_missing = true }
          parser.on("--markdown FILE", "gate: also write the verdict as Markdown for a pull-request comment") { |path| @markdown = path }
        end
      end

      # Each side is one run, or several separated by commas (runs interleaved
      # A B A B on one CI runner): their measurements pool as repeats, so the
      # spread is measured across whole runs. An unreadable run is bad input:
      # exit 2, never 1 (which means "regressed").
      def sources
        @argv.map do |side|
          runs = side.split(",").reject(&:empty?).map { |target| Arena::Report::Source.open(target) }
          raise UsageError, USAGE if runs.empty?
          runs.each { |s| s.notes.each { |note| @err.puts "arena: note: #{note}" } }
          Side.new(path: runs.map(&:path).join(", "), document: Results::Document.pool(runs.map(&:view)))
        end
      rescue UsageError
        raise
      rescue Error => e
        raise UsageError, e.message
      end

      def gate(compare, thresholds)
        raise UsageError, "the two runs have no measurement in common: nothing to gate on" if compare.pairs.empty?
        gate = Verdicts::Gate.new(compare: compare, thresholds: thresholds, allow_missing: @allow_missing == true)
        @out.print Arena::Report::GateText.new(gate).render
        markdown = Arena::Report::GateMarkdown.new(gate, base: @argv[0], head: @argv[1]).render
        File.write(@markdown, markdown) if @markdown
        summary = ENV["GITHUB_STEP_SUMMARY"]
        File.open(summary, "a") { |io| io.write(markdown, "\n") } if summary && !summary.empty?
        gate.failed? ? 1 : 0
      rescue SystemCallError => e
        raise UsageError, "cannot write the gate's Markdown: #{e.message}"
      end
    end
  end
end
