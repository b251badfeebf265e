# frozen_string_literal: true

require "erb"
require_relative "../scenarios/base"
require_relative "../support/format"
require_relative "../support/registry"
require_relative "answer_section"
require_relative "brief"
require_relative "brief_findings"
require_relative "charts"
require_relative "facts"
require_relative "formats"
require_relative "per_request"
require_relative "queue_work"
require_relative "recommend"
require_relative "rows"
require_relative "side"
require_relative "terminal"

module Arena
  module Report
    # report.html: one self-contained page (inline CSS, charts as inline SVG,
    # no script, nothing fetched) a team lead can open offline and read in a
    # minute, in the terminal's order: the answer (a tune's, from tune.json's
    # answer record) or the pick, then one sorted table, then the findings,
    # then the detail. A tune's page leaves out the run-level use-case picks:
    # they would rest on the search's unpaired figures and could contradict
    # the answer, whose margins come from its own confirmation rounds.
    class Html
      extend Support::Registry::Member

      declare "html", "report.html", into: Formats

      TEMPLATE = File.join(__dir__, "html.erb")

      include ERB::Util

      # The results table's columns: the verdict leads, then the figures.
      RESULT_HEADINGS = ["server", "vs the fastest", "good req/s ±95%", "errors", "p50", "p99 (rounds)", "PSS peak", "CPU"].freeze

      # answer: the terminal's lines of a tune's answer (markdown's fallback);
      # tune_answer: tune.json's answer record (Results::TuneAnswer) or nil.
      def initialize(document, notes: [], answer: [], tune_answer: nil)
        @document = document
        @notes = notes
        @answer = answer
        @tune_answer = tune_answer
      end

      def render
        charts = Charts.new(@document)
        colors = ->(server) { charts.color(server) }
        own = Scenarios.all.flat_map { |scenario| Side.of(scenario).sections(@document, colors: colors) }
        @sections = charts.sections + own.reject(&:panels?)
        @timelines = own.select(&:panels?)
        @answer_section = AnswerSection.of(@tune_answer)
        @recommendations = @answer_section ? [] : Recommend.new(@document).call
        @brief = Brief.new(@document)
        @results = @brief.groups
        @table = Table.new(@document)
        @summary = @table.rows
        @per_request = PerRequest.rows(@document)
        @queue_work = QueueWork.rows(@document)
        @findings = BriefFindings.new(@document).entries
        ERB.new(File.read(TEMPLATE), trim_mode: "-").result(binding)
      end

      private

      def title
        servers = @document.servers.map(&:name).uniq
        "Arena report: #{servers.empty? ? "no servers" : servers.join(", ")}"
      end

      def environment = Facts.environment(@document.environment)

      def load_line = Facts.load(@document.plan)

      def run_line = Facts.run_line(@document)

      def servers = @document.servers

      def command(server) = Facts.command(server.command)

      def status(server) = server.state

      def result_cells(row, words)
        [@brief.label(row), words, Format.rps_spread(row), Support::Format.error_pct(row.error_pct), Support::Format.duration_us(row.p50_us),
          Format.p99_spread(row), Support::Format.memory_kb(row.pss_peak_kb), "#{row.cpu_pct.round}%"]
      end

      # The verdict's cell says which kind it is; the figures align right.
      def cell_class(index, cell, words)
        if index == 1
          kind = if words == "fastest" then " fastest"
          elsif words.start_with?("failed", "unanswered") then " failed"
          end
          %( class="verdict#{kind}")
        elsif index > 1 && numeric?(cell)
          ' class="num"'
        end
      end

      def table_html(headings, rows, numeric_from: 1)
        head = headings.map { |h| "<th>#{h(h)}</th>" }.join
        body = rows.map do |row|
          "<tr>" + row.each_with_index.map { |c, i| %(<td#{' class="num"' if i >= numeric_from && numeric?(c)}>#{h(c)}</td>) }.join + "</tr>"
        end.join("\n")
        %(<div class="scroll"><table><thead><tr>#{head}</tr></thead><tbody>#{body}</tbody></table></div>)
      end

      # A figure, with its unit, interval (±) or range: "3,617 ±12%", "11.8ms (10.1ms-13.5ms)".
      def numeric?(cell) = cell.is_a?(Numeric) || cell.to_s.match?(/\A[\d,.\s()%±-]+((us|ms|s|MiB|GiB)[\d,.\s()%±-]*)*\z/)
    end
  end
end
