# frozen_string_literal: true

require_relative "../verdicts/limits"
require_relative "../version"

module Arena
  module Results
    # The constraints a tune ran under, as a value; its JSON form is written
    # here only (tune.json's "constraints" and the plan's "tune" record).
    TuneConstraints = Struct.new(:slo_ms, :memory_mib, :error_limit_pct, :max_time_s, :server_cores, :cpus, :duration_s,
      :warmup_s, :connections, keyword_init: true) do
      def self.of(plan, memory_mib:)
        new(slo_ms: plan.load.slo_ms, memory_mib: memory_mib, error_limit_pct: Verdicts::Limits::ERROR_LIMIT_PCT, max_time_s: plan.load.max_time,
          server_cores: plan.machine.server_cores, cpus: plan.machine.cpus_mode, duration_s: plan.load.duration,
          warmup_s: plan.load.warmup, connections: plan.load.connections).freeze
      end

      def slo_words = slo_ms ? "given" : "max(100 ms, 3 x unloaded p99) per server"

      def to_record
        {"slo_ms" => slo_ms, "slo" => slo_words, "memory_mib" => memory_mib, "error_limit_pct" => error_limit_pct,
         "max_time_s" => max_time_s, "server_cores" => server_cores, "cpus" => cpus, "duration_s" => duration_s,
         "warmup_s" => warmup_s, "connections" => connections}
      end
    end

    # tune.json (schema arena-tune/1): the only place its keys are written.
    # Tune::Output hands over values (outcomes, candidates, capacity notes);
    # this turns them into the document.
    module TuneDocument
      SCHEMA = "arena-tune/1"

      module_function

      # answer: Tune::Answer#to_record (server, settings, command,
      # config_file, runner_up, ratio, interval, ...), first in the file.
      # resume: how `arena tune --resume` plans the same tune again (TuneResume::Recipe).
      def document(workload:, constraints:, interrupted:, servers:, answer: nil, resume: nil)
        {"schema" => SCHEMA, "arena_version" => VERSION, "created_at" => Time.now.utc.iso8601, "answer" => answer,
         "workload" => workload.to_h.transform_keys(&:to_s), "constraints" => constraints.to_record,
         "interrupted" => interrupted || nil, "servers" => servers, "resume" => resume&.to_record}.compact
      end

      # The answer the confirmation rounds settled (Tune::Answer.confirm):
      # the search's record with the rounds' margin (ratio, interval,
      # rounds), the baseline it is measured against and its gain, the
      # absolute figures (medians of the counted rounds) with the machine
      # speed they were taken at, and each round's speed readings.
      def confirmed_answer(record, answer:)
        c = answer.confirmed
        b = answer.baseline
        ratio, interval = c.gain_ratio
        record.merge("keep" => c.keep,
          "baseline" => {"config" => b.words, "source" => b.source, "server" => b.server, "settings" => b.settings,
                         "ratio" => ratio, "interval" => interval, "verdict" => c.keep ? "keep what you run" : "gain",
                         "significance" => c.gain&.reason, "failed" => c.baseline&.failed, "notes" => b.notes}.compact,
          "figures" => {"rps" => c.rps&.median&.round(1), "rps_interval" => c.rps&.low && [c.rps.low.round(1), c.rps.high.round(1)],
                        "p99_ms" => c.p99_ms&.round(2), "pss_mib" => c.pss_kb && (c.pss_kb / 1024.0).round(1),
                        "model" => "closed loop", "speed_range" => c.speed_range}.compact,
          "stay" => stay(c, b),
          "scaling" => scaling(answer.scaling),
          "measured_on" => answer.measured_on, "more_time" => answer.more_time,
          "confirmation" => confirmation(c)).compact
      end

      # The answer on every core against one core (Tune::Scaling::Result), or nil when not tried.
      def scaling(r)
        return nil unless r
        ratio, interval = r.factor
        {"cores" => r.cores, "server_cores" => r.server_cores, "config" => r.many&.label, "ratio" => ratio, "interval" => interval, "rounds" => r.rounds,
         "pss_mib" => r.pss_kb && (r.pss_kb / 1024.0).round(1), "why" => r.why, "stay" => scaling(r.stay)}.compact
      end

      # The best config of the baseline's server against the baseline: nil when it was not searched.
      def stay(c, b)
        side = c.stay
        return nil unless side
        ratio, interval = c.stay_ratio
        {"server" => b.server, "config" => side.key, "settings" => side.adapter.settings, "yours" => side.equal?(c.baseline),
         "ratio" => ratio, "interval" => interval, "significance" => c.stay_gain&.reason, "failed" => side.failed}.compact
      end

      def confirmation(c)
        {"rounds" => c.rounds, "flagged" => c.flagged, "stopped" => c.stopped, "band_pct" => c.band_pct,
         "verdict" => c.verdict&.word, "reason" => c.verdict&.reason,
         "sides" => [c.pick, c.other, c.baseline, c.stay].compact.uniq.map do |s|
           {"role" => s.role, "config" => s.key, "failed" => s.failed, "rps" => s.rps.transform_keys(&:to_s).transform_values { |x| x&.round(1) }}.compact
         end}
      end

      # One server's search. capacity: a Tune::Capacity for the winner (or
      # nil); file: {path:, command:} of its config file (or nil);
      # envelope: the envelope record (see #envelope) or nil.
      def server(outcome:, note:, slo_ms:, capacity: nil, file: nil, envelope: nil)
        return {"note" => note} unless outcome
        best = outcome.best
        rec = {"best" => best && figures(best), "runner_up" => outcome.runner_up && figures(outcome.runner_up),
               "margin_pct" => outcome.margin&.then { |m| (100 * m).round(1) }, "noise_pct" => (100 * outcome.noise).round(1),
               "within_noise" => outcome.within_noise?, "significance" => outcome.difference&.reason, "stopped" => outcome.stopped,
               "slo_ms" => slo_ms, "note" => note, "model" => outcome.model&.then { |m| {"slots" => m[:slots], "settings" => m[:settings]} },
               "duels" => outcome.duels&.map { |d| duel(d) },
               "candidates" => outcome.candidates.map { |c| candidate(c) }, "envelope" => envelope}
        if capacity
          rec.merge!("capacity" => capacity_record(capacity),
            "config_file" => file && file[:path], "command" => file && file[:command])
        end
        rec.compact
      end

      def figures(c)
        {"settings" => c.settings, "label" => c.label, "sustained_rps" => c.sustained_rps.round(1), "p99_ms" => c.p99_ms,
         "pss_mib" => c.pss_mib, "closed_rps" => c.closed_rps&.round(1), "closed_pss_mib" => c.closed_pss_kb && (c.closed_pss_kb / 1024.0).round(1),
         "error_pct" => c.error_pct, "rates" => c.rates&.map { |x| x.round(1) }}.compact
      end

      # One duel of the search: the challenger (b) against the best (a), their round figures.
      def duel(d)
        {"a" => d.a, "b" => d.b, "a_rps" => d.a_rates.map { |x| x.round(1) }, "b_rps" => d.b_rates.map { |x| x.round(1) },
         "won" => d.won?, "significance" => d.difference(d.b, d.a, names: %w[a b]).reason}
      end

      # Every candidate the search measured, with why it did or did not qualify.
      def candidate(c)
        {"settings" => c.settings, "label" => c.label, "status" => c.status, "why" => c.why, "sustained_rps" => c.sustained_rps&.round(1),
         "closed_rps" => c.closed_rps&.round(1), "p99_ms" => c.p99_ms&.round(2), "pss_mib" => c.pss_mib,
         "closed_pss_mib" => c.closed_pss_kb && (c.closed_pss_kb / 1024.0).round(1), "error_pct" => c.error_pct,
         "mean_latency_ms" => c.mean_ms&.round(2), "service_ms" => c.service_ms&.round(2), "closed_cpu_pct" => c.cpu_pct,
         "resolution" => c.resolution, "measured_s" => c.elapsed_s&.round(1), "rates" => c.rates&.map { |r| r.round(1) },
         "throttled_pct" => c.throttled_pct, "cgroup_peak_mib" => c.cgroup_peak_mib}.compact
      end

      # Little's law from the winner's figures (Tune::Capacity) and its explanation.
      def capacity_record(cap)
        {"slots" => cap.slots, "in_server" => cap.in_server, "service_ms" => cap.service_ms, "cpu_ms_per_request" => cap.cpu_ms,
         "cpu_pct" => cap.cpu_pct, "cpu_ceiling_rps" => cap.cpu_ceiling&.round(1), "slot_ceiling_rps" => cap.slot_ceiling&.round(1),
         "cores" => cap.cores, "limit" => cap.limit, "explanation" => cap.explanation}.compact
      end

      def envelope(limits:, best:, unbounded:, cost_pct:)
        {"limits" => limits, "throttled_pct" => best&.throttled_pct, "cgroup_peak_mib" => best&.cgroup_peak_mib,
         "unbounded" => unbounded && candidate(unbounded), "cost_pct" => cost_pct}.compact
      end
    end
  end
end
