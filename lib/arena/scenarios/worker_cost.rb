# frozen_string_literal: true

require_relative "../launch/local_server"
require_relative "../results/measurement"
require_relative "../stats/linear_fit"
require_relative "base"

module Arena
  module Scenarios
    # What one more worker costs in memory, under load, on this app. The same
    # closed load runs against the server config at 1, 2, 4, ... workers (up
    # to --max-workers), each a fresh start of the config with only its
    # worker count changed (the setting each adapter names as worker_setting);
    # PSS of the whole tree counts shared copy-on-write pages once, so the
    # fit PSS = base + n × per-worker gives the marginal cost. Copy-on-write
    # sharing per worker, 1 − USS/RSS, is read at the start and the end of the
    # load: it decays as the workers write their heaps. Pitchfork runs once
    # more at the largest count with reforking on (refork_after set so a
    # refork falls mid-load), to show sharing and cost after a refork.
    #
    # The scenario replaces the server while it runs and starts the original
    # config again at the end, through the run's Launch::Session.
    class WorkerCost < Base
      scenario "worker-cost", "the same load at 1, 2, 4 workers (to --max-workers): PSS = base + n x per-worker, copy-on-write sharing at start and end"
      setting :max_workers, flag: "--max-workers N", type: Integer, default: 4, check: 1..256, help: "worker-cost: largest worker count of 1, 2, 4, ..."

      # The fit's record (its summary measurement's extra, written by #summary).
      figures :setting, :points, :base_kb, :per_worker_kb, :r2, :worker_rss_kb

      # One worker count's figures among the fit's points (written by #point,
      # or #at's error when the count did not start), as a record.
      Point = Struct.new(:workers, :label, :error, :good_rps, :pss_kb, :rss_kb, :uss_kb, :procs, :sharing_boot, :sharing_start,
        :sharing_end, :workers_start, :workers_end, :worker_rss_kb, :refork, :refork_after, :reforked, keyword_init: true)

      # A fit's points as records.
      def self.points_of(figures) = Array(figures.points).map { |p| Point.new(**Point.members.to_h { |k| [k, p[k.to_s]] }).freeze }

      # [measurement, its figures, its points] of each fit in the document
      # (a summary with a per-worker cost), for the chart and the memory pick.
      def self.fits(document)
        document.measurements.filter_map do |m|
          x = figures_of(m)
          [m, x, points_of(x)] if x&.per_worker_kb && m.summary?
        end
      end

      def self.counts(max) = [1, 2, 4, 8, 16, 32, 64, 128, 256].select { |n| n <= max }.then { |c| c.include?(max) ? c : c + [max] }

      def planned(load, adapter)
        return 0 unless adapter.class.worker_setting
        self.class.counts(load.max_workers).size + (refork?(adapter) ? 1 : 0)
      end

      def self.long? = true

      # A boot per worker count, and one more for the config it started with.
      def self.seconds(guess)
        count = new.planned(guess.load, guess.adapter)
        count.zero? ? 0.0 : count * (guess.boot_s + guess.measurement_s) + guess.boot_s
      end

      def call(ctx)
        @replaced = false
        original = ctx.adapter
        setting = original.class.worker_setting
        return [summary_record(ctx, "not applicable", {"reason" => "#{original.key} has no worker processes"})] unless setting
        points = self.class.counts(ctx.load.max_workers).map do |n|
          at(ctx, original.with_settings(setting => n), "workers-#{n}") { |m, before| point(ctx, m, n, before) }
        end
        last = points.reject { |p| p["error"] }.last
        if refork?(original) && last && last["good_rps"].to_f.positive?
          points << at(ctx, reforking(original, setting, last, ctx.load), "refork") { |m, before| point(ctx, m, last["workers"], before, refork: true) }
        end
        measurements = points.filter_map { |p| p.delete("measurement") }
        [*measurements, summary(ctx, original, points)]
      rescue Interrupt
        @replaced = false # Ctrl-C: the runner stops what runs; nothing to start again
        raise
      ensure
        # The run goes on with the config it started with, freshly started.
        replace(ctx, original, ctx.dir) if @replaced
      end

      # For the memory recommendation: per server config, the fewest workers
      # measured that reach `floor` good req/s, and the PSS the fit gives
      # them. nil when no worker-cost summary is in the document.
      def self.memory_at_floor(document, share:)
        fits = self.fits(document)
        return nil if fits.empty?
        workload = fits.group_by { |m, _, _| m.workload }.max_by { |_, fs| fs.size }.first
        group = fits.select { |m, _, _| m.workload == workload }
        floor = share * group.flat_map { |_, _, points| points.map { |p| p.good_rps.to_f } }.max
        options = group.filter_map do |m, x, points|
          p = points.reject { |q| q.refork || q.error }.select { |q| q.good_rps.to_f >= floor }.min_by(&:workers)
          p && {server: p.label || m.server, workers: p.workers, good_rps: p.good_rps, pss_kb: p.pss_kb,
                base_kb: x.base_kb, per_worker_kb: x.per_worker_kb}
        end
        {workload: workload, floor: floor, ranked: options.sort_by { |o| o[:pss_kb] }}
      end

      private

      def refork?(adapter) = adapter.class.settings.key?("refork_after")

      # Starts `adapter` in place of the current server, measures, stops it.
      # A count the server cannot start with is a point with its error, not
      # the end of the scenario.
      def at(ctx, adapter, name)
        begin
          replace(ctx, adapter, File.join(ctx.dir, "worker-cost", name))
        rescue Launch::LocalServer::Failed => e
          return {"workers" => adapter.settings[adapter.class.worker_setting], "label" => adapter.label, "error" => e.message}
        end
        workers_before = ctx.server.worker_pids
        # Sharing right after boot, before the settle probes touch a worker.
        boot = sharing(Results::MemorySample.new(processes: ctx.server.memory(workers_before.empty? ? ctx.server.pids : workers_before)), workers_before)
        m = measure(ctx, ctx.settings(keep_alive: ctx.load.keep_alive_modes.first), variant: name.tr("-", "="), per_process: true)
        yield(m, workers_before).merge("sharing_boot" => boot)
      end

      def replace(ctx, adapter, dir)
        @replaced = !adapter.equal?(ctx.adapter) || @replaced
        ctx.replace(adapter, dir)
      end

      # Reforking after about half the counted load: each worker's share of
      # the requests served until then, at the throughput just measured.
      def reforking(original, setting, last, load)
        per_worker = (last["good_rps"].to_f * ((load.warmup || 0) + load.duration / 2.0) / last["workers"]).round
        original.with_settings(setting => last["workers"], "refork_after" => [per_worker, 1].max.to_s)
      end

      # One worker count's figures: PSS under load (the mean of the last
      # third of the samples), the workers' RSS and sharing at start and end
      # (of the workers there at each: a refork replaces them).
      def point(ctx, m, n, before, refork: false)
        samples = m.probes.samples
        tail = samples.last([samples.size / 3, 1].max)
        workers = ctx.server.worker_pids
        {
          "measurement" => m.with(extra: m.extra.merge("workers" => n)), "workers" => n, "label" => ctx.adapter.label,
          "good_rps" => m.good_rps, "pss_kb" => mean(tail.map(&:pss_kb)), "rss_kb" => mean(tail.map(&:rss_kb)),
          "uss_kb" => mean(tail.map(&:uss_kb)), "procs" => samples.last.procs,
          "sharing_start" => sharing(samples.first, before), "sharing_end" => sharing(samples.last, workers),
          "workers_start" => before, "workers_end" => workers,
          "worker_rss_kb" => mean(worker_figures(samples.last, workers).map { |p| p["rss_kb"] }),
          "refork" => refork || nil, "refork_after" => refork ? ctx.adapter.settings["refork_after"] : nil
        }.compact.merge(refork ? {"reforked" => reforked?(samples)} : {})
      end

      # Sharing of the workers in a sample: 1 − USS/RSS, averaged. Workers
      # respawned since (not in the sample) are left out.
      def sharing(sample, workers)
        figures = worker_figures(sample, workers).select { |p| p["rss_kb"].to_i.positive? }
        figures = Array(sample.processes) if figures.empty?
        return nil if figures.empty?
        (figures.sum { |p| 1 - p["uss_kb"].fdiv(p["rss_kb"]) } / figures.size).round(3)
      end

      def worker_figures(sample, workers) = Array(sample.processes).select { |p| workers.include?(p["pid"]) }

      # A refork replaces workers: pids seen at the start are gone at the end.
      def reforked?(samples)
        first = Array(samples.first.processes).map { |p| p["pid"] }
        last = Array(samples.last.processes).map { |p| p["pid"] }
        (first - last).any?
      end

      def mean(values) = values.empty? ? nil : (values.sum.to_f / values.size).round

      def summary(ctx, original, points)
        plain = points.reject { |p| p["refork"] || p["error"] }
        fit = Stats::LinearFit.of(plain.map { |p| [p["workers"], p["pss_kb"]] })
        largest = plain.max_by { |p| p["workers"] }
        # Under the original config's label: the fit is about that config.
        summary_record(ctx, "fit", {
          "setting" => original.class.worker_setting, "points" => points,
          "base_kb" => fit&.intercept&.round, "per_worker_kb" => fit&.slope&.round, "r2" => fit&.r2&.round(3),
          "worker_rss_kb" => largest&.fetch("worker_rss_kb", nil)
        }).with(server: original.label)
      end
    end
  end
end
