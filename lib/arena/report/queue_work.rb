# frozen_string_literal: true

module Arena
  module Report
    # Queue time apart from service time (--queue-time on): per measurement,
    # the p50 and p99 of the time a request waited before the app started
    # on it and of the time inside the app, beside the engine's own p50/p99.
    module QueueWork
      HEADINGS = ["server", "workload", "scenario", "requests seen", "p50", "waiting p50", "working p50", "p99", "waiting p99", "working p99"].freeze

      module_function

      def rows(document) = document.measured.select(&:queue)

      def cells(m)
        q = m.queue
        lat = m.load.latency
        [m.server, m.workload, m.label, q.n.to_s, Format.duration_us(lat.p50), us(q.queue_p50_us), us(q.work_p50_us),
          Format.percentile_us(lat.p99, lat.n, :p99), us(q.queue_p99_us), us(q.work_p99_us)]
      end

      def us(value) = value ? Format.duration_us(value) : "-"

      def render(document)
        rows = rows(document)
        return "" if rows.empty?
        table = ::Terminal::Table.new(title: "waiting and working (inside the app, --queue-time)", headings: HEADINGS,
          rows: rows.map { |m| cells(m) })
        (3..9).each { |i| table.align_column(i, :right) }
        "#{table}\n"
      end
    end
  end
end
