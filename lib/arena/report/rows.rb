# frozen_string_literal: true

module Arena
  module Report
    # Turns the measurements of a results document into one row per
    # server × workload × scenario × variant. Repeats are folded into the
    # median with their min and max, so every renderer shows the same figures.
    # Throughput is goodput (responses that passed the checks); latency is of
    # good responses; `samples` is how many the percentiles rest on.
    module Rows
      Row = Struct.new(:server, :workload, :scenario, :variant, :runs, :rps, :rps_min, :rps_max,
        :p50_us, :p99_us, :max_us, :errors, :error_pct, :requests, :samples, :pss_peak_kb, :rss_peak_kb, :cpu_pct,
        :flags, keyword_init: true) do
        def label = variant ? "#{scenario} #{variant}" : scenario

        def erroneous? = flags.include?("errors")

        def stalled? = flags.include?("stalled")
      end

      module_function

      def from(document)
        groups = document.measured.group_by { |m| [m.server, m.workload, m.scenario, m.variant] }
        groups.map do |(server, workload, scenario, variant), runs|
          rps = runs.map(&:good_rps)
          errors = runs.sum { |m| m.load.errors }
          good = runs.sum { |m| m.load.good }
          Row.new(
            server: server, workload: workload, scenario: scenario, variant: variant, runs: runs.size,
            rps: median(rps), rps_min: rps.min, rps_max: rps.max,
            p50_us: median(runs.map { |m| m.load.latency.p50.to_f }),
            p99_us: median(runs.map { |m| m.load.latency.p99.to_f }),
            max_us: runs.map { |m| m.load.latency.max.to_f }.max,
            errors: errors, error_pct: (good + errors).zero? ? 0.0 : (100.0 * errors / (good + errors)).round(3),
            requests: good, samples: runs.map { |m| m.load.latency.n }.min,
            pss_peak_kb: runs.map { |m| m.probes&.pss_peak_kb.to_i }.max,
            rss_peak_kb: runs.map { |m| m.probes&.rss_peak_kb.to_i }.max,
            cpu_pct: median(runs.map { |m| m.probes&.cpu_pct.to_f }),
            flags: runs.flat_map(&:flags).uniq.freeze
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

      # Under 1 req/s (a fractional open-model rate, 0.25) two significant digits.
      def rps(value)
        return value.round.to_s.reverse.scan(/\d{1,3}/).join(",").reverse if value >= 100
        (value.positive? && value < 1) ? format("%.2g", value) : format("%.1f", value)
      end

      # "10%, 25% and 50%"
      def and_list(words) = (words.size < 2) ? words.join : "#{words[0..-2].join(", ")} and #{words.last}"

      def duration_us(us)
        return "-" if us.nil?
        if us >= 1_000_000 then format("%.2fs", us / 1e6)
        elsif us >= 1000 then format("%.1fms", us / 1e3)
        else format("%dus", us.round)
        end
      end

      # A percentile only where n supports it (p99 needs 100 samples).
      def percentile_us(us, n, name)
        return duration_us(us) if n.nil? || n >= Results::PERCENTILE_MIN_SAMPLES.fetch(name, 1)
        "n=#{n} too small"
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

      def error_pct(pct)
        return "0" if pct.zero?
        (pct < 0.01) ? "<0.01%" : format("%.2f%%", pct)
      end
    end
  end
end
