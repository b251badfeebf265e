# frozen_string_literal: true

require "erb"

module Arena
  module Report
    # report.html: one self-contained page (inline CSS, charts as inline SVG,
    # no script, nothing fetched) a team lead can open offline and read in a
    # minute: the recommendations first, then the evidence.
    class Html
      extend Support::Registry::Member

      declare "html", "report.html", into: Formats

      TEMPLATE = File.join(__dir__, "html.erb")

      include ERB::Util

      def initialize(document, notes: [], answer: [])
        @document = document
        @notes = notes
        @answer = answer
      end

      def render
        charts = Charts.new(@document)
        colors = ->(server) { charts.color(server) }
        own = Scenarios.all.flat_map { |scenario| scenario.sections(@document, colors: colors) }
        @sections = charts.sections + own.reject(&:panels?)
        @timelines = own.select(&:panels?)
        @recommendations = Recommend.new(@document).call
        @table = Table.new(@document)
        @summary = @table.rows
        @per_request = PerRequest.rows(@document)
        @queue_work = QueueWork.rows(@document)
        @findings = Findings.lines(@document)
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
