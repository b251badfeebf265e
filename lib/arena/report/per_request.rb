# frozen_string_literal: true

require_relative "../support/format"
require_relative "rows"

module Arena
  module Report
    # A mix's requests apart: for each measurement of a mix, one row per
    # request with its asked share, its share of the goodput, its bad
    # responses and its own percentiles (the mix's p99 hides a fast request's
    # behind the slow ones). Repeats are folded as in Rows: sums of counts,
    # medians of percentiles. Pure: document in, rows out.
    module PerRequest
      HEADINGS = ["server", "workload", "scenario", "request", "asked", "of goodput", "good req/s", "bad", "p50", "p99", "max"].freeze
      Row = Struct.new(:server, :workload, :label, :request, :asked, :good_share, :good_rps, :bad, :p50_us, :p99_us,
        :max_us, :samples, keyword_init: true)

      module_function

      def rows(document)
        groups = document.measured.select { |m| m.load.requests }.group_by { |m| [m.server, m.workload, m.label] }
        groups.flat_map do |(server, workload, label), runs|
          names = runs.first.load.requests.map(&:name)
          good_all = runs.sum { |m| m.load.requests.sum(&:good) }
          names.map do |name|
            figures = runs.filter_map { |m| m.load.requests.find { |r| r.name == name } }
            good = figures.sum(&:good)
            Row.new(server: server, workload: workload, label: label, request: name, asked: figures.first.weight_share,
              good_share: good_all.zero? ? 0.0 : good.fdiv(good_all),
              good_rps: Rows.median(runs.zip(figures).map { |m, f| m.load.duration_s.positive? ? f.good / m.load.duration_s : 0.0 }),
              bad: figures.sum(&:bad), p50_us: Rows.median(figures.map { |f| f.latency.p50.to_f }),
              p99_us: Rows.median(figures.map { |f| f.latency.p99.to_f }), max_us: figures.map { |f| f.latency.max.to_f }.max,
              samples: figures.sum { |f| f.latency.n }).freeze
          end
        end
      end

      def cells(r)
        [r.server, r.workload, r.label, r.request, pct(r.asked), pct(r.good_share), Support::Format.rps(r.good_rps), r.bad.to_s,
          Support::Format.duration_us(r.p50_us), Format.percentile_us(r.p99_us, r.samples, :p99), Support::Format.duration_us(r.max_us)]
      end

      def pct(share) = format("%.1f%%", share * 100)

      def render(document)
        rows = rows(document)
        return "" if rows.empty?
        table = ::Terminal::Table.new(title: "per request of a mix", headings: HEADINGS, rows: rows.map { |r| cells(r) })
        (4..10).each { |i| table.align_column(i, :right) }
        "#{table}\n"
      end
    end
  end
end
