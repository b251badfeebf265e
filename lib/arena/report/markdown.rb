# frozen_string_literal: true

module Arena
  module Report
    # report.md: for a pull request or a README. Pure: document in, text out.
    class Markdown
      extend Support::Registry::Member

      declare "md", "report.md", into: Formats

      RIGHT = (3..11)

      def initialize(document, notes: [], answer: [])
        @document = document
        @notes = notes
        @answer = answer
      end

      def render
        [header, answer, environment, servers, results, per_request, queue_work, scenario_sections, findings, recommendations].compact.join("
")
      end

      private

      def header
        lines = ["# Arena report", "", "#{Facts.run_line(@document)}.", ""]
        @notes.each { |n| lines.push("> Note: #{n}.", "") }
        lines.join("\n")
      end

      # `arena tune`'s answer, in the words the terminal ends with.
      def answer
        return nil if @answer.empty?
        ["## The answer", "", "```", *@answer, "```", ""].join("\n")
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
        return "## Results\n\nNo measurements.\n" if rows.empty?
        body = table(Table::HEADINGS, rows.map { |r| cells.cells(r) }, right: RIGHT)
        ["## Results", "", "Good req/s counts only responses that passed the checks; latency is of good responses. " \
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
        sections = Scenarios.all.flat_map { |scenario| scenario.sections(@document, colors: ->(server) { charts.color(server) }) }
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

      def findings
        lines = Findings.lines(@document)
        return nil if lines.empty?
        ["## Findings", "", *lines.map { |l| "- #{l}" }, ""].join("\n")
      end

      def recommendations
        rows = Recommend.new(@document).call.map do |r|
          why = (r.pick || r.run.nil?) ? r.because : "#{r.because}: run `#{r.run}`"
          why += " (then: `#{r.run}`)" if r.pick && r.run&.start_with?("arena run")
          [r.use_case, r.pick || "-", why]
        end
        ["## Recommendations", "", "Derived from this run's numbers only; a different machine or app may rank differently.", "",
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
