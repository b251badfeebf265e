# frozen_string_literal: true

require_relative "../stats/histogram"
require_relative "../verdicts/batching"
require_relative "../verdicts/concurrency"
require_relative "../verdicts/flags"
require_relative "../verdicts/limits"
require_relative "../verdicts/stall"
require_relative "../verdicts/verdict"
require_relative "database_figures"
require_relative "envelope_figures"
require_relative "noise_figures"

module Arena
  module Results
    ENGINE_SCHEMAS = %w[arena-load/1 arena-load/2].freeze
    # Responses that arrived whole but failed the checks: counted as
    # completed by the engine, never as good.
    FAILED_CHECKS = %w[unexpected_status body_mismatch].freeze
    # Nothing ended in at least this share of a measurement's end: hung.
    HUNG_SHARE = 0.5

    # Latency figures in microseconds. `n` is how many responses they come
    # from: a percentile is only worth showing when n supports it.
    Latency = Struct.new(:n, :min, :p50, :p75, :p90, :p99, :p999, :p9999, :max, :mean, :stdev, keyword_init: true)

    class Latency
      def self.from_engine(h)
        return new(n: 0) unless h.is_a?(Hash)
        new(n: h["count"].to_i, min: h["min"], p50: h["p50"], p75: h["p75"], p90: h["p90"], p99: h["p99"], p999: h["p999"], p9999: h["p9999"],
          max: h["max"], mean: h["mean"], stdev: h["stdev"]).freeze
      end

      def supported?(name) = n >= Verdicts::Limits::PERCENTILE_MIN_SAMPLES.fetch(name, 1)

      # The percentile, or nil when n is too small for it.
      def at(name) = (self[name] if supported?(name))
    end

    # One slice of the engine's timeline (1 s, or finer for event scenarios).
    TimelinePoint = Struct.new(:t, :completed, :good, :errors, :p50_us, :p99_us, :error_kinds, keyword_init: true)

    class TimelinePoint
      def self.from_engine(h)
        completed = h["completed"].to_i
        good = h.key?("good") ? h["good"].to_i : [completed - bad(h["error_kinds"]), 0].max
        new(t: h["t"].to_f, completed: completed, good: good, errors: h["errors"].to_i, p50_us: h["p50_us"],
          p99_us: h["p99_us"], error_kinds: (h["error_kinds"] || {}).freeze).freeze
      end

      # Responses that arrived whole but failed the checks count as completed
      # in the engine's first schema; they are not good.
      def self.bad(kinds) = kinds.to_h.values_at(*FAILED_CHECKS).sum(&:to_i)
    end

    # One request of a mix, measured apart by the engine: its share of the
    # mix's weight, its responses, the good ones, the bad ones (unexpected
    # status or body) and the latency of its good responses. A connection's
    # errors stay the mix's.
    RequestFigures = Struct.new(:name, :weight_share, :completed, :good, :bad, :latency, keyword_init: true)

    class RequestFigures
      def self.from_engine(list)
        return nil unless list.is_a?(Array)
        list.map do |h|
          new(name: h["name"].to_s, weight_share: h["weight_share"].to_f, completed: h["completed"].to_i,
            good: h["good"].to_i, bad: h["bad"].to_i, latency: Latency.from_engine(h["latency_us"])).freeze
        end.freeze
      end
    end

    # One stage of a load profile, by its requests' intended times: asked,
    # sent, completed, good, errors, dropped and the good ones' latency.
    StageFigures = Struct.new(:from_rps, :to_rps, :start_s, :seconds, :asked, :sent, :completed, :good, :errors, :dropped,
      :latency, keyword_init: true)

    class StageFigures
      def self.from_engine(list)
        return nil unless list.is_a?(Array)
        list.map do |h|
          new(from_rps: h["from_rps"].to_f, to_rps: h["to_rps"].to_f, start_s: h["start_s"].to_f, seconds: h["duration_s"].to_f,
            asked: h["asked"].to_f, sent: h["sent"].to_i, completed: h["completed"].to_i, good: h["good"].to_i,
            errors: h["errors"].to_i, dropped: h["dropped"].to_i, latency: Latency.from_engine(h["latency_us"])).freeze
        end.freeze
      end

      def asked_rps = asked / seconds

      def sent_rps = sent / seconds

      def good_rps = good / seconds
    end

    # What the engine measured, parsed once at its boundary. `raw` is the
    # engine's document as it printed it, kept whole in the results file.
    LoadFigures = Struct.new(:schema, :model, :duration_s, :sent, :completed, :good, :rps, :good_rps, :errors,
      :error_kinds, :latency, :latency_all, :timeline, :late, :dropped, :resent, :status, :requests, :stages, :raw, :warmup_sent, keyword_init: true)

    class LoadFigures
      def self.from_engine(raw)
        raise Error, "load engine output is not a JSON object" unless raw.is_a?(Hash)
        unless ENGINE_SCHEMAS.include?(raw["schema"])
          raise Error, "load engine schema #{raw["schema"].inspect} is not one this Arena reads (#{ENGINE_SCHEMAS.join(", ")})"
        end
        from_h(raw)
      end

      # Also reads engine documents kept in older results files.
      def self.from_h(raw)
        errors = raw["errors"].is_a?(Hash) ? raw["errors"] : {}
        kinds = errors.except("total").transform_values(&:to_i)
        completed = raw.dig("requests", "completed").to_i
        duration = raw["duration_s"].to_f
        good_section = raw["good"].is_a?(Hash) ? raw["good"] : nil
        good = good_section ? good_section["completed"].to_i : [completed - kinds.values_at(*FAILED_CHECKS).sum(&:to_i), 0].max
        all = Latency.from_engine(raw["latency_us"])
        new(
          schema: raw["schema"], model: raw["model"], duration_s: duration, sent: raw.dig("requests", "sent").to_i,
          warmup_sent: raw.dig("requests", "warmup_sent")&.to_i,
          completed: completed, good: good, rps: raw["throughput_rps"].to_f,
          good_rps: if good_section
                      good_section["rps"].to_f
                    else
                      (completed.positive? ? raw["throughput_rps"].to_f * good / completed : 0.0)
                    end,
          errors: errors.fetch("total") { kinds.values.sum }.to_i, error_kinds: kinds.freeze,
          # The first schema has no histogram of good responses alone: all
          # responses stand in (they are the same when nothing failed).
          latency: good_section ? Latency.from_engine(good_section["latency_us"]) : all, latency_all: all,
          timeline: Array(raw["timeline"]).map { |p| TimelinePoint.from_engine(p) }.freeze,
          late: raw.dig("open", "late"), dropped: raw.dig("open", "dropped"), resent: raw.dig("connections", "resent"),
          status: (raw["status"] || {}).freeze, requests: RequestFigures.from_engine(raw["requests_mix"]),
          stages: StageFigures.from_engine(raw["stages"]), raw: raw
        ).freeze
      end

      def open? = model == "open"

      # The histogram of good responses' latency (the engine writes it with
      # --histograms), so several runs merge exactly; nil when absent or unreadable.
      def good_histogram
        Stats::Histogram.decode(raw.dig("good", "latency_histogram"))
      rescue Stats::Histogram::Invalid
        nil
      end

      def bytes_received = raw.fetch("bytes_received", 0).to_i

      # The timeline's slice in seconds (1 s unless the run asked for finer).
      def interval_s = raw["timeline_ms"] ? raw["timeline_ms"].to_f / 1000 : 1.0

      def warmup_s = raw["warmup_s"].to_f

      # Whether connections were kept alive (older documents: they were).
      def keep_alive? = raw.fetch("keep_alive", true) != false

      # Keep-alive was asked, but the server closed the connections (Unicorn,
      # Pitchfork): at least one new connection for every two responses,
      # beyond the connections the run opened itself (a slow server answers
      # fewer than two per connection in a round while keeping every one).
      def server_closed?
        reopened = raw.dig("connections", "opened").to_i - connections_requested
        keep_alive? && completed.to_i.positive? && reopened * 2 >= completed.to_i
      end

      # What the stall rule (lib/arena/verdicts/stall.rb) reads of this load,
      # with the app's split (a QueueSplit or nil), the config's declared
      # slots and the unloaded latency.
      def stall_figures(server_cpu_pct:, server_cores:, queue: nil, slots: nil, service_us: nil, noisy: false)
        Verdicts::Stall::Figures.new(p50_us: latency.p50, mean_us: latency.mean, good_rps: good_rps, connections: connections_requested,
          open_model: open?, keep_alive: keep_alive?, server_cpu_pct: server_cpu_pct, server_cores: server_cores,
          waiting_p50_us: queue&.queue_p50_us, working_p50_us: queue&.work_p50_us, slots: slots, service_us: service_us,
          waiting_mean_us: queue&.queue_mean_us, working_mean_us: (queue&.work_mean_us if queue&.queue_mean_us), split_n: queue&.queue_n,
          noisy: noisy).freeze
      end

      # What the effective-concurrency rule (lib/arena/verdicts/concurrency.rb)
      # reads; spread: the connections each process held (Probes::Spread),
      # dropped when the server closed them (each request a new connection:
      # no spread stays), processes: the workers that each accept their own.
      def concurrency_figures(queue:, slots:, server_cpu_pct:, server_cores:, spread: nil, processes: nil)
        Verdicts::Concurrency::Figures.new(rps: (rps if queue), working_mean_us: queue&.work_mean_us, working_p50_us: queue&.work_p50_us,
          waiting_p50_us: queue&.queue_p50_us, declared: slots, connections: connections_requested,
          server_cpu_pct: server_cpu_pct, server_cores: server_cores, spread: (spread unless server_closed?),
          processes: processes).freeze
      end

      # What the batching rule (lib/arena/verdicts/batching.rb) reads of this load.
      def batching_figures(queue:, slots: nil, server_cpu_pct: nil, server_cores: nil)
        Verdicts::Batching::Figures.new(good_rps: good_rps, latency_mean_us: latency.mean, waiting_mean_us: queue&.queue_mean_us, slots: slots,
          server_cpu_pct: server_cpu_pct, server_cores: server_cores,
          working_mean_us: queue&.work_mean_us, connections: connections_requested, duration_s: duration_s, open_model: open?).freeze
      end

      # Connections asked of the engine (older documents lack the argv).
      def connections_requested = raw.dig("connections", "requested").to_i

      # Errors as a share of every request that ended (a response or an
      # error), counting as failed the requests a hung server left unanswered.
      def error_pct
        ended = good + failed
        ended.zero? ? 0.0 : (100.0 * failed / ended).round(3)
      end

      # Requests that failed: errors, and those a hung server left unanswered.
      def failed = errors + hung

      def nonzero_error_kinds = error_kinds.reject { |_, v| v.zero? }

      # Nothing ended in the whole measurement (no response and no error), or
      # the server stopped answering: nothing ended in the last half of it or
      # more while requests were in flight. A hung server (or one the requests
      # never reached) reads "0 good req/s, 0% errors" otherwise, the figures
      # of a quiet one; one that answered once and then hung read "0.1 req/s,
      # 0% errors", and was picked when it was the only server.
      def unanswered?
        return false unless duration_s.positive?
        (completed.zero? && errors.zero?) || (in_flight.positive? && (silent_s >= HUNG_SHARE * duration_s || idle_loop?))
      end

      # A closed loop that answered fewer requests than it had connections
      # (most never got one), whose answers account for less than HUNG_SHARE
      # of the run on a single connection: the latencies of the requests
      # answered add up to the time connections were served (Little's law),
      # and a server that answered one request in 900 us of a 10 s run,
      # wherever the answer fell, left its connections waiting on nothing it
      # did (the silent end alone missed an answer late in the run). A slow
      # server's answers fill the run however few (one slot of 1 s: 9
      # answers, 45 s served); an open model idles between arrivals by design.
      def idle_loop?
        return false if open? || errors.positive? || completed >= connections_requested
        served_us = completed * (latency_all.mean || latency_all.p50).to_f
        served_us < HUNG_SHARE * duration_s * 1e6
      end

      # The requests a hung server left unanswered (0 unless unanswered?).
      def hung = unanswered? ? in_flight : 0

      # Requests sent that had neither a response nor an error at the end.
      def in_flight = [sent - completed - errors, 0].max

      # The seconds at the end of the timeline in which nothing ended.
      def silent_s = timeline.reverse.take_while { |p| p.completed.zero? && p.errors.zero? }.size * interval_s
    end

    # processes: per-process figures when the scenario asked for them
    # (soak, worker-cost): [{"pid", "pss_kb", "rss_kb", "uss_kb"}], else nil.
    MemorySample = Struct.new(:t, :procs, :pss_kb, :rss_kb, :uss_kb, :cpu_pct, :processes, keyword_init: true)

    # The probes' view of a process tree during a measurement.
    Memory = Struct.new(:pss_peak_kb, :pss_mean_kb, :rss_peak_kb, :uss_peak_kb, :cpu_pct, :procs_max, :procs_min,
      :samples, keyword_init: true)

    class Memory
      def self.from_h(h)
        return nil unless h.is_a?(Hash)
        new(pss_peak_kb: h["pss_peak_kb"].to_i, pss_mean_kb: h["pss_mean_kb"].to_i, rss_peak_kb: h["rss_peak_kb"].to_i,
          uss_peak_kb: h["uss_peak_kb"].to_i, cpu_pct: h["cpu_pct_mean"].to_f, procs_max: h["procs_max"], procs_min: h["procs_min"],
          samples: Array(h["samples"]).map { |s| MemorySample.new(**s.transform_keys(&:to_sym).slice(*MemorySample.members)).freeze }.freeze).freeze
      end

      def to_record
        {"pss_peak_kb" => pss_peak_kb, "pss_mean_kb" => pss_mean_kb, "rss_peak_kb" => rss_peak_kb, "uss_peak_kb" => uss_peak_kb,
         "cpu_pct_mean" => cpu_pct, "procs_max" => procs_max, "procs_min" => procs_min,
         "samples" => samples.map { |s| s.to_h.compact.transform_keys(&:to_s) }}
      end
    end

    # The figures every table shows, computed once when the measurement is
    # made and written beside the engine's document, so a reader of
    # results.json (or another tool) need not know the engine's schema.
    # `stall` is the stall rule's reason when it said "stalled" (time that
    # neither queueing nor work explains, its likely cause and what it cost).
    # `pool` is the pool-exhaustion rule's reason when Rails' connection pool
    # ran dry (lib/arena/verdicts/pool_exhaustion.rb). `busy_slots` (requests inside
    # the app at once, by Little's law on its working time) stands beside
    # `declared_slots` (the config's; nil: no fixed ceiling), and
    # `concurrency` is the reason when it ran far fewer (under-concurrent).
    # `reachable_slots` are the slots its kept-alive connections could keep
    # busy as they fell over its workers (read midway through the load; nil
    # where not read), and `uneven` the reason when that is fewer than the
    # load could fill (flag "uneven", lib/arena/verdicts/concurrency.rb).
    # `fault` is a known server fault's reason when one explains the errors
    # (lib/arena/verdicts/truncated_response.rb): the server's, not Arena's.
    Summary = Struct.new(:good_rps, :error_pct, :p50_us, :p99_us, :samples, :settled_s, :loader_cpu_pct, :flags, :stall, :pool,
      :busy_slots, :declared_slots, :concurrency, :fault, :batched, :loop_rps, :reachable_slots, :uneven, keyword_init: true)

    class Summary
      # queue: the app's split (QueueSplit) or nil; slots: the config's
      # declared slots (nil: no fixed ceiling); service_us: the request's
      # unloaded latency (the stall rule's service time without a split);
      # spread: {pid => connections held} (Probes::Spread) or nil;
      # processes: the workers that each accept their own connections.
      def self.of(load, settled_s: nil, settled: true, loader_cpu_pct: nil, server_cpu_pct: nil, server_cores: nil, noisy: false,
        envelope: nil, pool: nil, queue: nil, slots: nil, service_us: nil, fault: nil, spread: nil, processes: nil)
        figures = Verdicts::Flags::Figures.new(load: load, settled: settled, loader_cpu_pct: loader_cpu_pct,
          server_cpu_pct: server_cpu_pct, server_cores: server_cores, noisy: noisy, envelope: envelope, pool: pool,
          queue: queue, slots: slots, service_us: service_us, fault: fault, spread: spread, processes: processes)
        flagged = Verdicts::Flags.of(figures)
        reason = ->(word) { flagged.find { |v| v.word == word }&.reason }
        concurrency = figures.concurrency
        new(good_rps: load.good_rps.round(2), error_pct: load.error_pct, p50_us: load.latency.p50, p99_us: load.latency.p99,
          samples: load.latency.n, settled_s: settled_s, loader_cpu_pct: loader_cpu_pct, flags: flagged.map(&:word).freeze,
          stall: reason.call("stalled"), pool: reason.call("pool-exhausted"), busy_slots: concurrency.busy_slots,
          declared_slots: slots, concurrency: reason.call("under-concurrent"), reachable_slots: concurrency.reachable_slots,
          uneven: reason.call("uneven"), fault: fault&.reason, batched: reason.call("batched"),
          loop_rps: Verdicts::Batching.loop_rps(figures.batching)).freeze
      end

      def self.from_h(h)
        new(**h.transform_keys(&:to_sym).slice(*members)).tap { |s| s.flags = Array(s.flags).freeze }.freeze
      end

      # Absent reasons are left out, and the slots when nothing measured the
      # busy ones (declared_slots nil beside busy_slots: no fixed ceiling).
      def to_record
        to_h.transform_keys(&:to_s).tap do |h|
          %w[stall concurrency fault batched loop_rps reachable_slots uneven].each { |k| h.delete(k) unless h[k] }
          %w[busy_slots declared_slots].each { |k| h.delete(k) } unless busy_slots
        end
      end

      def flagged?(flag) = flags.include?(flag)

      # Too many errors (or no answer at all) to count as a served level, knee or pick.
      def erroneous? = flagged?("errors") || flagged?("unanswered")
    end

    # What was going on around a measurement (NoiseFigures), with
    # the verdict on it: "noisy" (and why) or "quiet".
    NoiseRecord = Struct.new(:figures, :verdict, keyword_init: true)

    class NoiseRecord
      def self.from_h(h)
        return nil unless h.is_a?(Hash)
        figures = NoiseFigures.from_h(h)
        new(figures: figures, verdict: Verdicts::Verdict.of(h["verdict"] || "quiet", h["reason"])).freeze
      end

      def noisy? = verdict.word == "noisy"

      def to_record
        figures.to_h.transform_keys(&:to_s).merge("verdict" => verdict.word, "reason" => verdict.reason).compact
      end
    end

    # How a measurement warmed up: seconds to a steady state (or to
    # --warmup-max), whether it got there, and the slices' good req/s.
    WarmupRecord = Struct.new(:seconds, :steady, :slices, :turn_s, keyword_init: true)

    class WarmupRecord
      def self.from_h(seconds, h)
        return nil if seconds.nil?
        h = h.is_a?(Hash) ? h : {}
        new(seconds: seconds.to_f, steady: h["steady"], slices: Array(h["slices_rps"]).freeze, turn_s: h["turn_s"]).freeze
      end

      # From a Warmup::Result.
      def self.of(result) = new(seconds: result.warmup_s, steady: result.steady, slices: result.slices, turn_s: result.turn_s).freeze

      def to_record = {"steady" => steady, "slices_rps" => slices, "turn_s" => turn_s}.compact
    end

    # Queue time apart from service time, measured inside the app by Arena's
    # timing wrapper (queue_time.rb): how many requests it saw, and the p50
    # and p99 of their waiting (send to the app's start) and working (inside
    # the app), in microseconds.
    # work_mean_us: the mean time working (older files lack it: nil).
    QueueSplit = Struct.new(:n, :queue_n, :queue_p50_us, :queue_p99_us, :work_p50_us, :work_p99_us, :work_mean_us, :queue_mean_us,
      keyword_init: true)

    class QueueSplit
      def self.from_h(h)
        return nil unless h.is_a?(Hash)
        new(n: h["n"].to_i, queue_n: h["queue_n"].to_i, queue_p50_us: h["queue_p50_us"], queue_p99_us: h["queue_p99_us"],
          work_p50_us: h["work_p50_us"], work_p99_us: h["work_p99_us"], work_mean_us: h["work_mean_us"],
          queue_mean_us: h["queue_mean_us"]).freeze
      end

      def to_record = to_h.compact.transform_keys(&:to_s)
    end

    MEASUREMENT_KEYS = %w[server workload scenario variant kind repeat engine_argv load probes front_probes loader envelope database summary extra
      warmup_s warmup noise rerun queue].freeze

    # One measurement: a server config under one workload and scenario
    # variant. A scenario's own figures (a crash's recovery, a rate curve) are
    # in `extra`, written by the scenario's file; readers elsewhere (recommend,
    # tune, charts, preset summaries) ask that scenario for the typed record
    # it declares (`figures`, scenarios/figures.rb), never a key. A summary
    # record (`kind` "summary") carries no load of its own.
    #
    # repeat: the round it belongs to (1, 2, ...; "repeat" in the file, as
    # before rounds); warmup: WarmupRecord; noise: NoiseRecord; rerun: true
    # for the second run of a measurement flagged noisy; envelope: what the
    # server's cgroup saw (EnvelopeFigures), or nil; database: what the run's
    # throwaway database saw (DatabaseFigures), or nil; settings: the
    # Load::Settings the engine ran with (not in the file, which keeps the
    # engine's argv: read back by from_h as a RecordedSettings, as far as that tells).
    Measurement = Struct.new(:server, :workload, :scenario, :variant, :kind, :repeat, :engine_argv, :load, :probes,
      :front_probes, :loader, :summary, :extra, :warmup, :noise, :rerun, :envelope, :queue, :database, :settings, keyword_init: true)

    class Measurement
      # A soak's fitted memory slope (MiB a minute) from its extra, or nil.
      def soak_slope = extra && extra["slope_mib_per_min"]

      def self.from_h(h)
        load = h["load"].is_a?(Hash) ? LoadFigures.from_h(h["load"]) : nil
        # Older summary records kept their figures at the top level.
        extra = (h["extra"].is_a?(Hash) ? h["extra"] : {}).merge(h.except(*MEASUREMENT_KEYS))
        summary = if h["summary"].is_a?(Hash) then Summary.from_h(h["summary"])
        elsif load then Summary.of(load)
        end
        new(server: h["server"], workload: h["workload"], scenario: h["scenario"], variant: h["variant"], kind: h["kind"],
          repeat: h["repeat"], engine_argv: h["engine_argv"], load: load, probes: Memory.from_h(h["probes"]),
          front_probes: Memory.from_h(h["front_probes"]), loader: Memory.from_h(h["loader"]), summary: summary,
          extra: extra.freeze, warmup: WarmupRecord.from_h(h["warmup_s"], h["warmup"]), noise: NoiseRecord.from_h(h["noise"]),
          rerun: h["rerun"] || nil, envelope: EnvelopeFigures.from_h(h["envelope"]), queue: QueueSplit.from_h(h["queue"]),
          database: DatabaseFigures.from_h(h["database"]), settings: recorded_settings(h["engine_argv"])).freeze
      end

      # What a results file tells of a measurement's settings: its connections.
      RecordedSettings = Struct.new(:connections, keyword_init: true)

      # The settings a measurement read from a results file ran with, as far
      # as its recorded engine argv tells: its connections (-c; a loader
      # fleet's record holds the total). nil without an argv (a summary record).
      def self.recorded_settings(argv)
        return nil unless argv.is_a?(Array)
        i = argv.index("-c")
        RecordedSettings.new(connections: i && Float(argv[i + 1], exception: false)&.to_i).freeze
      end

      def noisy? = flags.include?("noisy")

      def warmup_s = warmup&.seconds

      def measured? = !load.nil?

      def summary? = kind == "summary"

      def label = variant ? "#{scenario} #{variant}" : scenario

      def good_rps = summary&.good_rps.to_f

      def flags = summary&.flags || []

      def with(**changes) = self.class.new(**to_h, **changes).freeze

      # What the results file holds: the engine's document as it printed it,
      # the probes' samples, the summary, the scenario's extra.
      def to_record
        {"server" => server, "workload" => workload, "scenario" => scenario, "variant" => variant, "kind" => kind,
         "repeat" => repeat, "engine_argv" => engine_argv, "load" => load&.raw, "probes" => probes&.to_record,
         "front_probes" => front_probes&.to_record, "loader" => loader&.to_record, "envelope" => envelope&.to_record,
         "database" => database&.to_record,
         "summary" => summary&.to_record,
         "extra" => extra.empty? ? nil : extra, "warmup_s" => warmup&.seconds, "warmup" => warmup&.to_record,
         "noise" => noise&.to_record, "rerun" => rerun, "queue" => queue&.to_record}.compact
      end
    end
  end
end
