# frozen_string_literal: true

module Arena
  module Report
    # Turns the measurements of a results document into one row per
    # server × workload × scenario × variant. Repeats are folded into the
    # median with their min and max, so every renderer shows the same figures.
    module Rows
      Row = Struct.new(:server, :workload, :scenario, :variant, :runs, :rps, :rps_min, :rps_max,
        :p50_us, :p99_us, :max_us, :errors, :requests, :pss_peak_kb, :rss_peak_kb, :cpu_pct, keyword_init: true)

      module_function

      def from(document)
        measured = document.fetch("measurements", []).select { |m| m["load"].is_a?(Hash) }
        groups = measured.group_by do |m|
          m.values_at("server", "workload", "scenario", "variant")
        end
        groups.map do |(server, workload, scenario, variant), runs|
          rps = runs.map { |m| m.dig("load", "throughput_rps").to_f }
          Row.new(
            server: server, workload: workload, scenario: scenario, variant: variant, runs: runs.size,
            rps: median(rps), rps_min: rps.min, rps_max: rps.max,
            p50_us: median(runs.map { |m| m.dig("load", "latency_us", "p50").to_f }),
            p99_us: median(runs.map { |m| m.dig("load", "latency_us", "p99").to_f }),
            max_us: runs.map { |m| m.dig("load", "latency_us", "max").to_f }.max,
            errors: runs.sum { |m| m.dig("load", "errors", "total").to_i },
            requests: runs.sum { |m| m.dig("load", "requests", "completed").to_i },
            pss_peak_kb: runs.map { |m| m.dig("probes", "pss_peak_kb").to_i }.max,
            rss_peak_kb: runs.map { |m| m.dig("probes", "rss_peak_kb").to_i }.max,
            cpu_pct: median(runs.map { |m| m.dig("probes", "cpu_pct_mean").to_f })
          )
        end
      end

      def median(values)
        return 0.0 if values.empty?
        sorted = values.sort
        mid = sorted.size / 2
        sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
      end
    end

    # Units a person reads at a glance.
    module Format
      module_function

      def rps(value) = (value >= 100) ? value.round.to_s.reverse.scan(/\d{1,3}/).join(",").reverse : format("%.1f", value)

      def duration_us(us)
        return "-" if us.nil?
        if us >= 1_000_000 then format("%.2fs", us / 1e6)
        elsif us >= 1000 then format("%.1fms", us / 1e3)
        else format("%dus", us.round)
        end
      end

      # No process tree measures 0 kB: zero means not sampled (an older results file).
      def memory_kb(kb)
        return "-" if kb.to_i.zero?
        (kb.to_i >= 1024 * 1024) ? format("%.2f GiB", kb / 1048576.0) : format("%.1f MiB", kb.to_i / 1024.0)
      end

      def rps_spread(row)
        return rps(row.rps) if row.runs < 2
        "#{rps(row.rps)} (#{rps(row.rps_min)}-#{rps(row.rps_max)})"
      end
    end
  end
end
