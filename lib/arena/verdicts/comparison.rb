# frozen_string_literal: true

module Arena
  module Verdicts
    # What a comparison of two runs reads of them, for the table
    # (Report::Compare) and the gate (Verdicts::Gate) alike.
    module Comparison
      # Every figure a comparison or a gate reads from a measurement
      # (Results::Measurement), in one place. A percentile is read only where
      # the measurement has enough samples for it (p99 needs 100).
      READERS = {
        "good_rps" => ->(m) { m.good_rps },
        "rps" => ->(m) { m.load.rps },
        "p50" => ->(m) { m.load.latency.at(:p50)&.to_f },
        "p90" => ->(m) { m.load.latency.at(:p90)&.to_f },
        "p99" => ->(m) { m.load.latency.at(:p99)&.to_f },
        "p999" => ->(m) { m.load.latency.at(:p999)&.to_f },
        "pss" => ->(m) { m.probes&.pss_peak_kb&.then { |kb| kb.positive? ? kb.to_f : nil } },
        "rss" => ->(m) { m.probes&.rss_peak_kb&.then { |kb| kb.positive? ? kb.to_f : nil } },
        "errors" => ->(m) { m.load.errors.to_f },
        "error_pct" => ->(m) { m.load.error_pct.to_f }
      }.freeze

      # One row's measurements on both sides. `label` names the server config,
      # "A -> B" when it changed between the runs.
      Pair = Struct.new(:label, :workload, :scenario, :variant, :a, :b, keyword_init: true)

      class Pair
        def key = [label, workload, scenario, variant]

        def values(metric, side) = self[side].filter_map(&READERS.fetch(metric))
      end
    end
  end
end
