# frozen_string_literal: true

require_relative "../scenarios/base"
require_relative "brief_findings"
require_relative "recommend"

module Arena
  module Report
    # The terminal's last lines, at most MAX: the pick for each use case the
    # run measured (Recommend: paired tests, never a config that failed or
    # hung), with the runner-up's verdict from the tables, and one line for
    # the use cases it did not measure. The figures behind each and what to
    # run next are report.md's Recommendations.
    class BriefPick
      MAX = 6

      def initialize(document, brief:)
        @document = document
        @brief = brief
      end

      def lines
        all = Recommend.new(@document).call
        unmeasured, judged = all.partition { |r| r.pick.nil? && r.because.start_with?("not measured") }
        said = judged.map { |r| BriefFindings.fit(r.pick ? picked(r) : "#{r.use_case}: no pick, #{unpicked(r)}") }
        said = said.first(MAX - 1) + ["… and #{said.size - MAX + 1} more in report.md"] if said.size > MAX
        if said.size < MAX && unmeasured.any?
          said << "not measured: #{unmeasured.size} use case#{"s" unless unmeasured.size == 1} (report.md says what runs them)"
        end
        said
      end

      private

      # "fast request/response API: pick iodine; runner-up puma 0.61× (0.55–0.67)".
      def picked(r)
        second = runner_up(r)
        "#{r.use_case}: pick #{r.pick}#{"; runner-up #{second}" if second}"
      end

      # Where the pick was made on goodput, in a group of the tables where
      # it is the fastest: the next config serving there and its verdict words.
      def runner_up(r)
        return nil unless r.because.match?(%r{\A[\d,.]+ good req/s})
        basis = Scenarios.throughput_basis
        @brief.groups.each do |_, rows|
          first, second = rows.reject { |row, _| row.erroneous? }
          next unless first && second && basis.include?(first.first.scenario) && r.because.include?(" on #{first.first.workload}")
          next unless @brief.label(first.first) == r.pick && first.last == "fastest"
          return "#{@brief.label(second.first)} at #{second.last}"
        end
        nil
      end

      # The verdict in a few words ("equivalent", "not distinguishable",
      # "a tie", "trade-off: iodine serves more; agoo answers faster"):
      # its figures and tests left to report.md.
      def unpicked(r)
        said = r.because[/(?:\A|; )((?:equivalent|not distinguishable|trade-off|cannot judge|a tie).*)/, 1] or return "see report.md"
        said = said.gsub(/ \([^()]*\)/, "") while said.match?(/ \([^()]*\)/)
        said.start_with?("trade-off") ? said : said[/\A[^;:]*/]
      end
    end
  end
end
