# frozen_string_literal: true

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

      def self.finding(m)
        return "#{m.server} #{m.workload} worker-cost: not measured, #{m.extra["reason"]}" if m.summary? && m.extra["reason"]
        return nil unless m.summary? && m.extra["per_worker_kb"]
        x = m.extra
        failed = x["points"].select { |p| p["error"] }.map { |p| "; #{p["workers"]} workers did not start (#{p["error"]})" }.join
        sharing = x["points"].reject { |p| p["refork"] || p["error"] }.map { |p| "#{p["workers"]}: #{pct(p["sharing_start"])}→#{pct(p["sharing_end"])}" }.join(", ")
        refork = x["points"].find { |p| p["refork"] }
        refork_text = if refork
          "; with reforking (refork_after #{refork["refork_after"]}, #{refork["reforked"] ? "reforked" : "no refork seen"}): " \
                    "sharing #{pct(refork["sharing_start"])}→#{pct(refork["sharing_end"])}, PSS #{mib(refork["pss_kb"])}"
        else
          ""
        end
        "#{m.server} #{m.workload} worker-cost: PSS ≈ #{mib(x["base_kb"])} + n × #{mib(x["per_worker_kb"])} " \
          "(R² #{format("%.2f", x["r2"].to_f)}, n = #{x["points"].reject { |p| p["refork"] || p["error"] }.map { |p| p["workers"] }.join("/")}); " \
          "one worker's RSS #{mib(x["worker_rss_kb"])}; sharing per worker at start→end of load #{sharing}#{refork_text}#{failed}"
      end

      # "PSS ≈ 40.3 MiB + n × 22.9 MiB (R² 1.00)".
      def self.brief(m)
        return ["worker-cost", not_measured(m.extra["reason"])] if m.summary? && m.extra["reason"]
        return nil unless m.summary? && m.extra["per_worker_kb"]
        x = m.extra
        s = Support::Short
        failed = x["points"].select { |p| p["error"] }.map { |p| p["workers"] }
        ["worker-cost", "PSS ≈ #{s.memory_kb(x["base_kb"])} + n × #{s.memory_kb(x["per_worker_kb"])} (R² #{format("%.2f", x["r2"].to_f)})" \
          "#{"; #{failed.join(", ")} did not start" if failed.any?}"]
      end

      def self.pct(share) = share ? "#{(100 * share).round}%" : "-"

      def self.mib(kb) = kb ? "#{(kb.to_f / 1024).round(1)} MiB" : "-"

      def self.sections(document, colors:) = [WorkerCostChart.new(document, colors: colors).section].compact

      # For the memory recommendation: per server config, the fewest workers
      # measured that reach `floor` good req/s, and the PSS the fit gives
      # them. nil when no worker-cost summary is in the document.
      def self.memory_at_floor(document, share:)
        summaries = document.measurements.select { |m| m.scenario == key && m.summary? && m.extra["per_worker_kb"] }
        return nil if summaries.empty?
        workload = summaries.group_by(&:workload).max_by { |_, ms| ms.size }.first
        group = summaries.select { |m| m.workload == workload }
        floor = share * group.flat_map { |m| m.extra["points"].map { |p| p["good_rps"].to_f } }.max
        options = group.filter_map do |m|
          p = m.extra["points"].reject { |q| q["refork"] || q["error"] }.select { |q| q["good_rps"].to_f >= floor }.min_by { |q| q["workers"] }
          p && {server: p["label"] || m.server, workers: p["workers"], good_rps: p["good_rps"], pss_kb: p["pss_kb"],
                base_kb: m.extra["base_kb"], per_worker_kb: m.extra["per_worker_kb"]}
        end
        {workload: workload, floor: floor, ranked: options.sort_by { |o| o[:pss_kb] }}
      end

      # The memory recommendation's pick and its reason, or nil.
      def self.memory_pick(document, share:)
        found = memory_at_floor(document, share: share)
        best, second = found && found[:ranked]
        return nil unless best
        because = "#{mib(best[:pss_kb])} PSS under load at #{best[:workers]} worker#{"s" unless best[:workers] == 1} " \
          "(#{Support::Format.rps(best[:good_rps].to_f)} good req/s on #{found[:workload]}; #{mib(best[:base_kb])} + " \
          "#{mib(best[:per_worker_kb])} per worker), the fewest workers reaching #{Support::Format.rps(found[:floor])} req/s " \
          "(#{(100 * share).round}% of the best worker-cost goodput)"
        if second
          because += "; runner-up #{second[:server]} #{mib(second[:pss_kb])} at #{second[:workers]} worker(s), " \
            "#{mib(second[:per_worker_kb])} per worker"
        end
        [best[:server], because]
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

    # One stacked bar per worker count: the tree's PSS split into what only
    # one process holds (USS, solid) and its share of pages held by several
    # (PSS − USS, shaded: copy-on-write memory counted once); the fit's
    # per-worker cost in the note and the table.
    class WorkerCostChart
      BAR = 18
      GAP = 10
      WIDTH = 960
      # The plot's edges: worker labels left of LEFT, totals right of RIGHT,
      # the legend above TOP.
      LEFT = 150
      RIGHT = WIDTH - 110
      TOP = 40

      def initialize(document, colors:)
        @fits = document.measurements.select { |m| m.scenario == WorkerCost.key && m.summary? && m.extra["per_worker_kb"] }
        @colors = colors
      end

      def section
        return nil if @fits.empty?
        rows = @fits.flat_map do |m|
          m.extra["points"].map do |p|
            [m.server, m.workload, p["refork"] ? "#{p["workers"]} (refork_after #{p["refork_after"]})" : p["workers"],
              Support::Format.rps(p["good_rps"].to_f), mib(p["pss_kb"]), mib(p["uss_kb"]), mib(p["rss_kb"]),
              WorkerCost.pct(p["sharing_boot"]), WorkerCost.pct(p["sharing_start"]), WorkerCost.pct(p["sharing_end"]), mib(m.extra["per_worker_kb"]), mib(m.extra["base_kb"])]
          end
        end
        Report::Section.new(id: "worker-cost", title: "Memory per worker", charts: @fits.map { |m| chart(m) },
          note: "Each bar is the whole tree's PSS under the same closed load at that many workers (mean of the last third of the " \
                "samples): solid is memory only one process holds (USS), shaded is the tree's share of pages several processes " \
                "hold, copy-on-write pages counted once. Per-worker cost is the slope of PSS = base + n x per-worker; sharing " \
                "is 1 - USS/RSS per worker right after boot, at the start of the load (after the settle probes) and at its end.",
          headings: ["server", "workload", "workers", "good req/s", "PSS", "USS", "RSS", "sharing at boot", "at load start", "at load end",
            "per worker", "base"], rows: rows)
      end

      private

      def mib(kb) = kb ? Support::Format.memory_kb(kb) : "-"

      def chart(m)
        points = m.extra["points"].reject { |p| p["error"] }
        colour = @colors.call(m.server)
        height = TOP + points.size * (BAR + GAP) + 44
        scale = Report::Svg::Scale.new(0, Report::Svg.nice_max(points.map { |p| p["pss_kb"].to_f / 1024 }.max.to_f), LEFT, RIGHT)
        legend, = Report::Svg.legend([["private (USS)", colour], ["shared, counted once (PSS - USS)", "#{colour}55"]], x: LEFT, y: 18, width: RIGHT - LEFT)
        parts = [Report::Svg.open(WIDTH, height, "#{m.server} #{m.workload}: PSS by worker count"), legend, *grid(scale, height)]
        points.each_with_index { |p, i| parts.concat(bar(p, TOP + i * (BAR + GAP), scale, colour)) }
        parts << Report::Svg.text((LEFT + RIGHT) / 2.0, height - 8, "PSS of the tree under load, MiB " \
          "(≈ #{mib(m.extra["base_kb"])} + n × #{mib(m.extra["per_worker_kb"])})", anchor: "middle", weight: "600")
        parts << "</svg>"
        {title: "PSS by worker count: #{m.server} · #{m.workload}", svg: parts.join}
      end

      # A vertical line and its MiB figure at each tick of the scale.
      def grid(scale, height)
        scale.ticks.flat_map do |t|
          x = scale.call(t)
          [Report::Svg.line(x, TOP, x, height - 40, stroke: "#e3e3e3"),
            Report::Svg.text(x, height - 26, Report::Svg.trim(t), anchor: "middle", fill: "#555")]
        end
      end

      # One worker count's bar at y: its label, USS solid, the rest of its PSS
      # shaded, and the total after it.
      def bar(p, y, scale, colour)
        label = p["refork"] ? "#{p["workers"]} workers, reforked" : "#{p["workers"]} worker#{"s" unless p["workers"] == 1}"
        private_mib = p["uss_kb"].to_f / 1024
        shared_mib = [p["pss_kb"].to_f / 1024 - private_mib, 0].max
        x0 = scale.call(0)
        x1 = scale.call(private_mib)
        x2 = scale.call(private_mib + shared_mib)
        [Report::Svg.text(LEFT - 8, y + BAR - 5, label, anchor: "end"),
          rect(x0, y, x1 - x0, colour, 1, "#{label}: private #{private_mib.round(1)} MiB"),
          rect(x1, y, x2 - x1, colour, 0.33, "#{label}: shared #{shared_mib.round(1)} MiB"),
          Report::Svg.text(x2 + 6, y + BAR - 5, "#{(private_mib + shared_mib).round(1)} MiB")]
      end

      def rect(x, y, width, colour, opacity, tip)
        %(<rect class="bar" x="#{Report::Svg.n(x)}" y="#{Report::Svg.n(y)}" width="#{Report::Svg.n([width, 0].max)}" height="#{BAR}" ) +
          %(fill="#{colour}" fill-opacity="#{opacity}"><title>#{Report::Svg.esc(tip)}</title></rect>)
      end
    end
  end
end
