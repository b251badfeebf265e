# frozen_string_literal: true

require_relative "../servers/base"
require_relative "../stats/stats"
require_relative "../support/short"
require_relative "rows"

module Arena
  module Report
    # A/A (--aa): one config measured twice in the same rounds, under its own
    # label and its twin's (NAME~aa). Identical configs should read the same:
    # how far apart they read, paired on the rounds, is the run's own floor of
    # noise, and a test that calls them different is a false alarm the report
    # must say aloud (expected in 5% of runs at the 0.05 level; more often,
    # something in the machine or the method is off).
    module AA
      TWIN = Servers::Base::TWIN

      # One twin pair of rows and the test between them.
      Pair = Struct.new(:original, :twin, :difference, keyword_init: true)

      # A class body, not Struct.new's block: mutant skips methods defined in a closure.
      class Pair
        def different? = difference.significant? && !difference.equivalent?

        def line
          where = "#{original.server} #{original.workload} #{original.label}"
          words = difference.reason.delete_prefix("not distinguishable here: ")
          if different?
            "A/A WARNING: #{where} and its twin were declared different (#{words}): identical configs read apart, " \
              "so differences of this size between other configs of this run may be noise"
          else
            "A/A: #{where} and its twin read alike (#{words})"
          end
        end

        # The terminal's [word, text] (Report::BriefFindings), the gap to
        # three figures: "A/A  its twin reads alike: +1.2% (-3.1% to +5.5%)";
        # line is report.md's.
        def brief
          d = difference
          gap = d.low_pct && "#{signed(d.estimate_pct)} (#{signed(d.low_pct)} to #{signed(d.high_pct)})"
          return ["A/A WARNING", "its twin read #{gap} apart: gaps this size may be noise here"] if different?
          ["A/A", gap ? "its twin reads alike: #{gap}" : "its twin reads alike (#{d.reason.delete_prefix("not distinguishable here: ")})"]
        end

        def signed(pct) = "#{(pct.to_f < 0) ? "-" : "+"}#{Support::Short.sig(pct.to_f.abs)}%"
      end

      extend self

      def twin?(label) = label.end_with?(TWIN)

      # Rows of twins and their originals, paired on the rounds both ran in.
      def pairs(rows)
        rows.select { |r| twin?(r.server) }.filter_map do |twin|
          original = rows.find do |r|
            r.server == twin.server.delete_suffix(TWIN) && [r.workload, r.scenario, r.variant] == [twin.workload, twin.scenario, twin.variant]
          end
          next unless original
          diff = Stats.by_rounds(original.rps_runs, twin.rps_runs, rounds_a: original.round_runs, rounds_b: twin.round_runs,
            names: [original.server, twin.server])
          Pair.new(original: original, twin: twin, difference: diff).freeze
        end
      end

      def lines(document) = pairs(Rows.from(document)).map(&:line)
    end
  end
end
