# frozen_string_literal: true

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
    # report.md: for a pull request or a README, in the terminal's order: the
    # answer (a tune's, from tune.json's answer record) or the pick, the
    # sorted results with each row's verdict, the findings (the terminal's
    # line, then the rule's reason), then the detail. A tune's report leaves
    # out the run-level use-case picks (the search's unpaired figures).
    # Pure: document in, text out.
    class Markdown
      extend Support::Registry::Member

      declare "md", "report.md", into: Formats

      RIGHT = (3..11)

      def initialize(document, notes: [], answer: [], tune_answer: nil)
        @document = document
        @notes = notes
        @answer = answer
        @tune_answer = tune_answer
      end

      def render
        [header, answer || recommendations, verdicts, findings, environment, servers, results, per_request, queue_work,
          scenario_sections].compact.join("\n")
      end

      private

      def header
        lines = ["# Arena report", "", "#{Facts.run_line(@document)}.", ""]
        @notes.each { |n| lines.push("> Note: #{n}.", "") }
        lines.join("\n")
      end

      # `arena tune`'s answer, from tune.json's record (AnswerSection); the
      # terminal's lines where there is no record.
      def answer
        section = AnswerSection.of(@tune_answer)
        return ["## The answer", "", "**#{section.headline}**", "", *section.facts.map { |f| "- #{f.name}: #{f.code ? "`#{f.value}`" : f.value}" }, ""].join("\n") if section
        return nil if @answer.empty?
        ["## The answer", "", "```", *@answer, "```", ""].join("\n")
      end

      # Each group of the results, sorted, each row's verdict against the
      # group's fastest in words (Brief), then its figures.
      def verdicts
        brief = Brief.new(@document)
        return "## Results\n\nNo measurements.\n" if brief.groups.empty?
        body = brief.groups.map do |title, rows|
          cells = rows.map { |row, words| [brief.label(row), words, Format.rps_spread(row), Format.p99_spread(row), Support::Format.memory_kb(row.pss_peak_kb)] }
          ["### #{title}", "", table(["server", "vs the fastest", "good req/s ±95%", "p99 (rounds)", "PSS peak"], cells, right: (2..4)), ""].join("\n")
        end
        ["## Results", "", "Each row against the fastest config of its group that did not fail, paired on the rounds both ran in: " \
          "\"~ same\" where the 95% interval of the ratio holds 1 or lies within ±3%, else the ratio and its interval. " \
          "Every column of every row: Detail.", "", *body].join("\n")
      end

      def environment
        rows = Facts.environment(@document.environment)
        ["## Environment", "", table(["", ""], rows), "", "Load: #{Facts.load(@document.plan)}.", ""].join("\n")
      end

      def servers
        list = @document.servers
        return nil if list.empty?
        rows = list.map do |s|
          [s.label, s.version || "?", s.source || "?", s.state, "`#{Facts.command(s.command)}`"]
        end
        ["## Servers", "", table(%w[server version source status command], rows), ""].join("\n")
      end

      def results
        cells = Table.new(@document)
        rows = cells.rows
        return nil if rows.empty?
        body = table(Table::HEADINGS, rows.map { |r| cells.cells(r) }, right: RIGHT)
        ["## Detail", "", "Good req/s counts only responses that passed the checks; latency is of good responses. " \
          "#{Report::ROUNDS_NOTE} \"!\" marks errors over 1%, " \
          "\"stalled\" latency that sits at a fixed delay while the server idled (Findings say why). " \
          "Rows are grouped by workload, the highest goodput first; a server is named by the settings that differ " \
          "from its defaults (its full config: Servers).", "", body, ""].join("\n")
      end

      def per_request
        subsection(PerRequest, "Per request of a mix", "Each request of a mix measured apart: its share of the mix as " \
          "asked, its share of the goodput, its bad responses (unexpected status or body) and its own latency.", right: (4..10))
      end

      # Each scenario's own sections (its curve, its timelines), as report.html
      # has them: title, note and table; the charts stay in the HTML.
      def scenario_sections
        charts = Charts.new(@document)
        sections = Scenarios.all.flat_map { |scenario| Side.of(scenario).sections(@document, colors: ->(server) { charts.color(server) }) }
        return nil if sections.empty?
        sections.map do |sec|
          lines = ["### #{sec.title}", ""]
          lines.push(sec.note.to_s, "") if sec.note
          lines.push(table(sec.headings, sec.rows), "") if sec.headings && !Array(sec.rows).empty?
          lines.join("\n")
        end.join("\n")
      end

      def queue_work
        subsection(QueueWork, "Waiting and working", "Measured inside the app by Arena's timing wrapper (--queue-time on): " \
          "waiting is from the engine's send (X-Request-Start) to the app's start, working is the time inside the app.", right: (3..9))
      end

      # A table of the document's rows that one module (rows, cells, HEADINGS)
      # makes, under its title and note; nil where it has no rows.
      def subsection(source, title, note, right:)
        rows = source.rows(@document)
        return nil if rows.empty?
        ["### #{title}", "", note, "", table(source::HEADINGS, rows.map { |r| source.cells(r) }, right: right), ""].join("\n")
      end

      # The terminal's line for each finding, then its whole reason.
      def findings
        entries = BriefFindings.new(@document).entries
        return nil if entries.empty?
        ["## Findings", "", *entries.map { |e| (e.detail == e.line) ? "- #{e.line}" : "- **#{e.line}**  \n  #{e.detail}" }, ""].join("\n")
      end

      def recommendations
        rows = Recommend.new(@document).call.map do |r|
          why = (r.pick || r.run.nil?) ? r.because : "#{r.because}: run `#{r.run}`"
          why += " (then: `#{r.run}`)" if r.pick && r.run&.start_with?("arena run")
          [r.use_case, r.pick || "-", why]
        end
        ["## The pick", "", "Derived from this run's numbers only; a different machine or app may rank differently.", "",
          table(["use case", "pick", "why"], rows), ""].join("\n")
      end

      def table(headings, rows, right: [])
        align = headings.each_index.map { |i| right.include?(i) ? "--:" : "---" }
        [line(headings), "|#{align.join("|")}|", *rows.map { |r| line(r) }].join("\n")
      end

      def line(cells) = "| #{cells.map { |c| c.to_s.gsub("|", "\\|").tr("\n", " ") }.join(" | ")} |"
    end
  end
end
