# frozen_string_literal: true

require "terminal-table"
require_relative "../support/format"
require_relative "rows"

module Arena
  module Report
    # The figures a preset's source published, in its own terms, from a results
    # document: siege's report for reps, ab's median and p99 for count, and for
    # repeated steady runs the best run beside the median ("best of 3"). Pure:
    # document in, text out. The general report stays as it is; this only adds
    # what a reader needs to set a new result beside the old one.
    class PresetSummary
      def initialize(document)
        @document = document
      end

      def render
        groups = @document.measured.group_by { |m| [m.server, m.workload, m.scenario, m.variant] }
        [siege(groups), ab(groups), best_of(groups)].compact.join
      end

      private

      def siege(groups)
        rows = groups.filter_map do |(server, workload, _, variant), runs|
          s = Scenarios::Reps.figures_of(runs.first)&.siege or next
          [server, workload, variant, s["transactions"], "#{s["availability_pct"]}%", s["elapsed_s"],
            s["response_time_s"], s["transaction_rate"], s["concurrency"], s["failed"], s["longest_s"], s["shortest_s"]]
        end
        table("siege report", %w[server workload variant trans avail elapsed_s resp_s trans/s concurrency failed longest_s shortest_s], rows)
      end

      def ab(groups)
        rows = groups.filter_map do |(server, workload, _, variant), runs|
          a = Scenarios::Count.figures_of(runs.first)&.ab or next
          [server, workload, variant, a["complete_requests"], a["failed_requests"], a["requests_per_second"],
            a["median_ms"], a["p99_ms"], a["longest_ms"]]
        end
        table("ab figures (ms)", %w[server workload variant requests failed req/s median p99 longest], rows)
      end

      def best_of(groups)
        rows = groups.filter_map do |(server, workload, _, variant), runs|
          next if runs.size < 2 || !Scenarios::Steady.owns?(runs.first)
          best = runs.max_by(&:good_rps)
          rps = runs.map(&:good_rps)
          lat = best.load.latency
          [server, workload, variant, runs.size, rps.max.round(1), Report::Rows.median(rps).round(1),
            "#{(lat.mean.to_f / 1000.0).round(2)}/#{(lat.stdev.to_f / 1000.0).round(2)}/#{(lat.max.to_f / 1000.0).round(2)}",
            Support::Format.memory_kb(runs.map { |m| m.probes&.pss_peak_kb.to_i }.max)]
        end
        table("best of N (good req/s; the best run's latency, ms)", ["server", "workload", "variant", "runs", "best req/s", "median req/s", "avg/stdev/max", "PSS peak"], rows)
      end

      def table(title, headings, rows)
        return nil if rows.empty?
        "#{::Terminal::Table.new(title: title, headings: headings, rows: rows)}\n"
      end
    end
  end
end
