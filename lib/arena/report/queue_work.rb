# frozen_string_literal: true

require_relative "../support/format"
require_relative "rows"

module Arena
  module Report
    # Queue time apart from service time (--queue-time on): per measurement,
    # the p50 and p99 of the time a request waited before the app started
    # on it and of the time inside the app, beside the engine's own p50/p99.
    module QueueWork
      HEADINGS = ["server", "workload", "scenario", "requests seen", "p50", "waiting p50", "working p50", "p99", "waiting p99", "working p99"].freeze

      module_function

      Row = Struct.new(:server, :workload, :label, :n, :p50_us, :p99_us, :samples, :queue_p50_us, :queue_p99_us,
        :work_p50_us, :work_p99_us, keyword_init: true)

      # One row per server x workload x scenario: rounds folded as in Rows
      # (medians of the figures, the requests summed).
      def rows(document)
        document.measured.select(&:queue).group_by { |m| [m.server, m.workload, m.label] }.map do |(server, workload, label), ms|
          med = ->(&f) { Rows.median(ms.filter_map(&f).map(&:to_f)) }
          Row.new(server: server, workload: workload, label: label, n: ms.sum { |m| m.queue.n },
            p50_us: med.call { |m| m.load.latency.p50 }, p99_us: med.call { |m| m.load.latency.p99 },
            samples: ms.sum { |m| m.load.latency.n }, queue_p50_us: med.call { |m| m.queue.queue_p50_us },
            queue_p99_us: med.call { |m| m.queue.queue_p99_us }, work_p50_us: med.call { |m| m.queue.work_p50_us },
            work_p99_us: med.call { |m| m.queue.work_p99_us }).freeze
        end
      end

      def cells(r)
        [r.server, r.workload, r.label, r.n.to_s, Support::Format.duration_us(r.p50_us), us(r.queue_p50_us), us(r.work_p50_us),
          Format.percentile_us(r.p99_us, r.samples, :p99), us(r.queue_p99_us), us(r.work_p99_us)]
      end

      def us(value) = value ? Support::Format.duration_us(value) : "-"

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
