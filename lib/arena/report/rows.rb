# frozen_string_literal: true

require_relative "../results/rounds"
require_relative "../stats/histogram"
require_relative "../stats/median"
require_relative "../stats/stats"
require_relative "../support/format"
require_relative "../verdicts/limits"

module Arena
  module Report
    # What the figures of a table are, said once for every renderer.
    ROUNDS_NOTE = "Figures are medians over the rounds; ± is the half-width of the median's 95% interval " \
      "(t on log figures; \"no interval\" under 3 rounds); p50 and p99 the rounds' median (from their merged histograms where the engine wrote them), the p99 with its range over the rounds; a round flagged " \
      "noisy is left out when its re-run is there. The ratio is the row's goodput against its group's reference " \
      "(the fastest of the same workload and scenario), from the rounds both ran in (the machine's drift cancels in it), ± " \
      "half its 95% interval, n the rounds it rests on; ≈ marks a ratio equivalent to 1 within ±3%."
    # Turns the measurements of a results document into one row per
    # server × workload × scenario × variant. Rounds are folded into the
    # median with its 95% interval (Stats.interval) and their min and max, so
    # every renderer shows the same figures. A round flagged `noisy` is left
    # out when a clean figure of the same row is there (its re-run, usually);
    # `noisy_out` counts what was left out.
    # Throughput is goodput (responses that passed the checks); latency is of
    # good responses; `samples` is how many the percentiles rest on.
    module Rows
      Row = Struct.new(:server, :workload, :scenario, :variant, :runs, :rps, :rps_min, :rps_max,
        :p50_us, :p99_us, :max_us, :errors, :error_pct, :requests, :samples, :pss_peak_kb, :rss_peak_kb, :cpu_pct,
        :flags, :interval, :noisy_out, :p99_min_us, :p99_max_us, :rps_runs, :p99_runs, :round_runs, :pss_runs, keyword_init: true) do
        def label = variant ? "#{scenario} #{variant}" : scenario

        def erroneous? = flags.include?("errors") || unanswered?

        def unanswered? = flags.include?("unanswered")

        def stalled? = flags.include?("stalled")

        def pool_exhausted? = flags.include?("pool-exhausted")
      end

      module_function

      def from(document)
        groups = document.measured.group_by { |m| [m.server, m.workload, m.scenario, m.variant] }
        groups.map do |(server, workload, scenario, variant), all|
          runs = Results::Rounds.one_per_round(all)
          rps = runs.map(&:good_rps)
          p99s = runs.map { |m| m.load.latency.p99.to_f }
          merged = merged_latency(runs)
          errors = runs.sum { |m| m.load.errors }
          good = runs.sum { |m| m.load.good }
          Row.new(
            server: server, workload: workload, scenario: scenario, variant: variant, runs: runs.size,
            rps: median(rps), rps_min: rps.min, rps_max: rps.max,
            p50_us: merged ? merged.percentile(50).to_f : median(runs.map { |m| m.load.latency.p50.to_f }),
            p99_us: merged ? merged.percentile(99).to_f : median(runs.map { |m| m.load.latency.p99.to_f }),
            max_us: runs.map { |m| m.load.latency.max.to_f }.max,
            errors: errors, error_pct: (good + errors).zero? ? 0.0 : (100.0 * errors / (good + errors)).round(3),
            requests: good, samples: merged ? merged.total : runs.map { |m| m.load.latency.n }.min,
            pss_peak_kb: runs.map { |m| m.probes&.pss_peak_kb.to_i }.max,
            rss_peak_kb: runs.map { |m| m.probes&.rss_peak_kb.to_i }.max,
            cpu_pct: median(runs.map { |m| m.probes&.cpu_pct.to_f }),
            flags: runs.flat_map(&:flags).uniq.freeze,
            interval: Stats.interval(rps), noisy_out: all.size - runs.size, p99_min_us: p99s.min, p99_max_us: p99s.max,
            # Each run's figures, for the significance test of a pick; p99
            # only where every run had enough responses for one, PSS where
            # every run sampled it; each run's round, to pair them.
            rps_runs: rps.freeze, p99_runs: p99_runs(runs), round_runs: round_runs(runs), pss_runs: pss_runs(runs)
          )
        end
      end

      # The rows as a person reads them: one group per workload and scenario
      # (workloads and scenarios in the plan's order, then as first measured),
      # the highest goodput first within a group; ties keep the measured order.
      # Returns [[[workload, scenario, variant], rows], ...].
      def grouped(document)
        rows = from(document)
        workloads = plan_order(document, "workloads") { |w| w.is_a?(Hash) ? w["name"] : w }
        scenarios = plan_order(document, "scenarios") { |s| s }
        groups = rows.group_by { |r| [r.workload, r.scenario, r.variant] }.to_a
        groups.each_with_index.sort_by do |((workload, scenario, _), _), i|
          [workloads.index(workload) || workloads.size, scenarios.index(scenario) || scenarios.size, i]
        end.map { |(key, members), _| [key, members.each_with_index.sort_by { |r, i| [-r.rps, i] }.map(&:first)] }
      end

      def plan_order(document, key, &name)
        Array(document&.plan&.raw&.dig(key)).map(&name)
      end

      # Several rounds' good latency as one histogram (exact: the counts add
      # up), where every round's engine wrote one; nil for a single run or
      # when one is missing (then the rounds' median percentiles stand in).
      def merged_latency(runs)
        return nil if runs.size < 2
        histograms = runs.map { |m| m.load.good_histogram }
        return nil unless histograms.all?
        Stats::Histogram.merge(histograms)
      rescue Stats::Histogram::Invalid
        nil
      end

      def p99_runs(runs)
        values = runs.map { |m| m.load.latency.at(:p99)&.to_f }
        values.all? ? values.freeze : [].freeze
      end

      def round_runs(runs)
        rounds = runs.map(&:repeat)
        rounds.all? ? rounds.freeze : nil
      end

      def pss_runs(runs)
        values = runs.map { |m| m.probes&.pss_peak_kb.to_f }
        values.all?(&:positive?) ? values.freeze : [].freeze
      end

      # Stats.median, 0.0 for no values (a row shows a figure).
      def median(values) = Stats.median(values) || 0.0
    end

    # Figures of a row, or that a row's sample count decides, in the units of
    # Support::Format.
    module Format
      module_function

      # A percentile only where n supports it (p99 needs 100 samples).
      def percentile_us(us, n, name)
        return Support::Format.duration_us(us) if n.nil? || n >= Verdicts::Limits::PERCENTILE_MIN_SAMPLES.fetch(name, 1)
        "n=#{n} too small"
      end

      # "12,340 ±2.1%": the median over the rounds and the half-width of its
      # 95% interval; "(no interval)" from 2 rounds (the goodput was measured,
      # its interval needs 3), the figure alone from 1.
      def rps_spread(row)
        return Support::Format.rps(row.rps) if row.runs < 2
        iv = row.interval
        return "#{Support::Format.rps(row.rps)} (no interval)" unless iv&.measured?
        "#{Support::Format.rps(row.rps)} ±#{Support::Format.pct(iv.half_width_pct)}"
      end

      # The p99's spread over the rounds: "16.1ms (12.0ms-20.3ms)".
      def p99_spread(row)
        p99 = percentile_us(row.p99_us, row.samples, :p99)
        return p99 if row.runs < 2 || row.p99_min_us.nil? || p99.include?("too small")
        "#{p99} (#{Support::Format.duration_us(row.p99_min_us)}-#{Support::Format.duration_us(row.p99_max_us)})"
      end
    end
  end
end
