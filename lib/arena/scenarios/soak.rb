# frozen_string_literal: true

require_relative "../stats/linear_fit"
require_relative "../verdicts/soak"
require_relative "base"

module Arena
  module Scenarios
    # A long open-model run at a sustained rate (70% of the closed maximum,
    # measured first, or --soak-rate) for --soak-time, with every process of
    # the tree sampled: does memory settle, or keep growing? The growth slope
    # is a least-squares fit of the tree's PSS over the whole run; the verdict
    # rests on the last third alone, after the heap has had time to warm up.
    # Latency per slice of the run shows drift (GC pauses growing with the heap).
    class Soak < Base
      scenario "soak", "open model at 70% of the closed maximum for --soak-time; memory growth slope, plateau or growth, latency drift"
      setting :soak_time, flag: "--soak-time SEC", type: Float, default: 300.0, check: 1..86_400, help: "soak: seconds of sustained open-model load"
      setting :soak_rate, flag: "--soak-rate RPS", type: Integer, check: 1..1_000_000,
        help: "soak: this request rate instead of 70% of the closed maximum"

      FRACTION = 0.7
      # About this many memory samples over a soak, whatever its length.
      SAMPLES = 300

      def planned(_load, _adapter) = 2

      def self.long? = true

      def self.bound = :soak_time

      def self.seconds(guess) = guess.measurement_s + guess.measurement_s(guess.load.soak_time)

      # The closed maximum is measured even with --soak-rate: it also warms
      # the server up, so the soak starts from a heap that has served.
      def call(ctx)
        closed = measure(ctx, ctx.settings, variant: "closed-max")
        rate = ctx.load.soak_rate || (closed.good_rps * FRACTION).round
        return [closed] if rate < 1 || closed.good_rps <= 0
        time = ctx.load.soak_time
        settings = ctx.settings(rate: rate, connections: [ctx.load.connections * 4, 64].max, duration: time)
        interval = (time / SAMPLES).clamp(0.2, 2.0)
        soak = measure(ctx, settings, variant: "soak", interval: interval, per_process: true)
        [closed, soak.with(extra: SoakAnalysis.call(soak, rate: rate, closed_max: closed.good_rps))]
      end

      # A soak repeated over rounds is one answer (issue 35: "each ends with
      # one verdict"): the word all rounds agree on, else "unsettled", with
      # each word's count and the slopes' range.
      def self.round_key(m) = judged?(m) ? [m.server, m.workload] : nil

      # A soak measurement with its analysis (a slope fitted).
      def self.judged?(m) = m.variant == "soak" && !m.soak_slope.nil?
    end

    # Reads a soak's samples: slope and R² of the whole tree's PSS, the
    # verdict on the last third, each process's own slope, latency per slice.
    module SoakAnalysis
      # extend self, not module_function: Name.call then runs the methods mutant mutates
      extend self

      # Growth is judged on the last third, on USS: a leak grows private
      # memory, while PSS also moves when another process on the machine that
      # maps the same libraries starts or exits (their shared pages are split
      # among fewer). The last third because a fresh Ruby heap creeps up for
      # minutes (Puma on /server here: +2.6% in the second 10 s of a 20 s
      # soak). The rule and its stated floor: Verdicts::Soak.
      def call(m, rate:, closed_max:)
        all = m.probes.samples
        # A tree with no process left has died (a crash without respawn): its
        # zero memory is not a fall, so the fit stops where it did. (procs is
        # the sampler's count of the tree's pids: an Integer in every sample.)
        died = all.find { |s| s.procs.zero? }
        samples = all.take_while { |s| s.procs.positive? }
        # Under two live samples nothing can be fitted: dead from the start, or
        # a soak of one sample (the sampler takes one at the start and one at
        # the end, so only a run cut at once).
        return {"target_rps" => rate, "verdict" => died ? "died at once" : "too short to judge", "died_at_s" => died&.t} if samples.size < 2
        window = samples.last.t - samples.first.t
        {
          "target_rps" => rate, "closed_max_rps" => closed_max&.round(1), "soak_s" => window.round(1),
          "pss_first_kb" => samples.first.pss_kb, "pss_last_kb" => samples.last.pss_kb
        }.merge(growth(samples, window, died)).merge(
          "died_at_s" => died&.t, "procs_start" => samples.first.procs, "procs_min" => all.map(&:procs).min,
          "processes" => processes(samples)
        ).merge(latency(m.load, window))
      end

      # The tree's PSS fitted over the whole soak and its last third, the
      # last third's USS, and the verdict on it (unless the tree died).
      def growth(samples, window, died)
        whole = Stats::LinearFit.of(samples.map { |s| [s.t, s.pss_kb] })
        tail = samples.select { |s| s.t >= samples.first.t + window * 2 / 3.0 }
        last = Stats::LinearFit.of(tail.map { |s| [s.t, s.pss_kb] })
        private = Stats::LinearFit.of(tail.map { |s| [s.t, s.uss_kb] })
        # The third before the judged one: a cycle longer than the last third,
        # or a leak under its floor, shows against it (Verdicts::Soak).
        middle = samples.select { |s| s.t >= samples.first.t + window / 3.0 && s.t < samples.first.t + window * 2 / 3.0 }
        judged = Verdicts::Soak.call(tail.map { |s| [s.t, s.uss_kb] }, before: middle.map { |s| [s.t, s.uss_kb] })
        {
          "slope_mib_per_min" => per_min(whole), "r2" => whole&.r2&.round(3),
          "last_third_mib_per_min" => per_min(last), "last_third_uss_mib_per_min" => per_min(private),
          "last_third_growth_pct" => growth_pct(private, tail), "verdict" => died ? "died at #{died.t.round(1)} s" : verdict(judged.verdict),
          "verdict_reason" => (judged.verdict.reason unless died), "floor_mib_per_min" => judged.floor_mib_per_min
        }
      end

      def per_min(fit) = fit && (fit.slope * 60 / 1024).round(3)

      # The word results files have always held ("too short to judge" for
      # the cannot-judge verdict).
      def verdict(v) = v.judged? ? v.word : "too short to judge"

      # The change the USS fit predicts over the last third, as a share of USS.
      def growth_pct(fit, tail)
        return nil unless fit # a fit has two samples or more
        (100.0 * fit.slope * (tail.last.t - tail.first.t) / mean_uss(tail)).round(1)
      end

      def mean_uss(samples) = [samples.sum(&:uss_kb).fdiv(samples.size), 1].max

      # Each process's first and last PSS and its own slope, so a leak is
      # placed: the master, one worker, or every worker.
      def processes(samples)
        series = Hash.new { |h, k| h[k] = [] }
        samples.each { |s| Array(s.processes).each { |p| series[p["pid"]] << [s.t, p["pss_kb"]] } }
        series.map do |pid, points|
          {"pid" => pid, "pss_first_kb" => points.first[1], "pss_last_kb" => points.last[1],
           "slope_mib_per_min" => per_min(Stats::LinearFit.of(points)), "seen_s" => [points.first[0], points.last[0]]}
        end
      end

      # The engine's per-second timeline in slices (a minute, or a sixth of a
      # short soak): good responses, the median p50 and the worst p99 of the
      # slice's seconds (percentiles of seconds cannot be merged exactly).
      def latency(load, window)
        return {} unless load && !load.timeline.empty?
        slice = (window >= 180) ? 60 : [(window / 6.0).ceil, 1].max
        slices = load.timeline.group_by { |p| (p.t / slice).floor }.sort.map do |i, points|
          p50s = points.map(&:p50_us).compact.sort
          {"from_s" => i * slice, "good" => points.sum(&:good), "p50_us" => p50s[p50s.size / 2],
           "p99_us" => points.map(&:p99_us).compact.max}
        end
        timed = slices.select { |x| x["p99_us"].to_i.positive? }
        drift = ({"first_p99_us" => timed.first["p99_us"], "last_p99_us" => timed.last["p99_us"]} if timed.size >= 2)
        {"slice_s" => slice, "latency_slices" => slices, "latency_drift" => drift}
      end
    end
  end
end
