# frozen_string_literal: true

module Arena
  module Tune
    # One configuration as measured: its settings, the highest open-model
    # rate it sustained within the SLO (the objective), the closed-model
    # maximum and memory beside it, and why it does not qualify when it
    # does not. `rates` holds every measurement of the same settings (the
    # heuristic start is measured twice: the spread is the noise). Status:
    # ok; over-memory (its PSS under the sustained load exceeds the budget);
    # unsustained (no rate met the SLO with < 1% errors); failed (it did not
    # start or verify); pool-exhausted (Rails' connection pool ran dry);
    # oom-killed (in its envelope). In an envelope: the worst share of CFS
    # periods throttled and the cgroup's peak memory over its measurements.
    Candidate = Struct.new(:settings, :label, :sustained_rps, :closed_rps, :p99_ms, :pss_kb, :closed_pss_kb, :error_pct,
      :mean_ms, :service_ms, :cpu_pct, :resolution, :elapsed_s, :status, :why, :rates, :throttled_pct, :cgroup_peak_mib,
      keyword_init: true)

    class Candidate
      def self.failed(settings, why, elapsed_s: 0.0)
        new(settings: settings, sustained_rps: 0.0, closed_rps: 0.0, status: "failed", why: why, elapsed_s: elapsed_s, rates: [0.0]).freeze
      end

      def qualifies? = status == "ok"

      def pss_mib = pss_kb && (pss_kb / 1024.0).round(1)

      # The objective: what a qualifying candidate sustains, else nothing.
      def score = qualifies? ? sustained_rps.to_f : 0.0

      # Another measurement of the same settings: the mean rate, the spread
      # kept. A measurement that did not qualify (failed, over the budget,
      # OOM-killed, ...) disqualifies the config: the first failure stands.
      def repeated(other)
        all = rates + other.rates
        failure = qualifies? ? other : self
        with(sustained_rps: (all.sum / all.size).round(1), rates: all.freeze, status: failure.status,
          why: failure.qualifies? ? why : failure.why,
          elapsed_s: elapsed_s.to_f + other.elapsed_s.to_f, pss_kb: [pss_kb, other.pss_kb].compact.max)
      end

      # The relative spread of the repeats: (max - min) / mean.
      def spread
        return nil if rates.size < 2 || rates.sum.zero?
        (rates.max - rates.min) / (rates.sum / rates.size)
      end

      def with(**changes) = self.class.new(**to_h, **changes).freeze
    end
  end
end
