# frozen_string_literal: true

module Arena
  module Tune
    # Measures one configuration for the search: start the server with these
    # settings (ServerStarter), verify the workload, run the sustained
    # scenario (closed maximum, then the bisection of open rates), stop.
    # Every server record and measurement goes to the results store as in
    # `arena run`, so `arena report` and `arena compare` read a tune run.
    class Trial
      # The p99 objective every candidate of this server was judged by.
      attr_reader :slo_ms

      # adapter: the server as given (its other settings and runtime are kept).
      def initialize(plan:, adapter:, version:, workload:, store:, engine:, starter:, memory_kb:, deadline: nil, log: ->(_) {}, scenario: Scenarios::Sustained)
        @plan = plan
        @adapter = adapter
        @version = version
        @workload = workload
        @store = store
        @engine = engine
        @starter = starter
        @memory_kb = memory_kb
        @deadline = deadline
        @log = log
        @scenario = scenario
        @baselines = {}
        @count = 0
      end

      def call(settings)
        started = Clock.now
        adapter = configured(settings)
        @count += 1
        candidate = measure(adapter, settings)
        candidate.with(elapsed_s: (Clock.now - started).round(2), rates: [candidate.sustained_rps.to_f])
      rescue ServerRun::Failed, Error => e
        @store.add_server({"label" => adapter&.label || @adapter.key, "name" => @adapter.key, "status" => "failed", "error" => e.message})
        Candidate.failed(settings, e.message, elapsed_s: (Clock.now - started).round(2)).tap { |c| say(c) }
      ensure
        @starter.stop
      end

      private

      # The adapter with these settings; runtime dimensions (yjit, jemalloc)
      # go to its runtime, over the one it was given.
      def configured(settings)
        changes = Space.adapter_settings(settings).transform_values(&:to_s)
        runtime = @adapter.runtime.merge(Runtime.parse(Space.runtime_tokens(settings)))
        @adapter.class.new(settings: @adapter.settings.merge(changes), machine: @plan.machine, runtime: runtime)
      end

      def measure(adapter, settings)
        dir = File.join(@plan.out_dir, "servers", format("%02d-%s", @count, adapter.label.gsub(/[^\w.=-]+/, "_")))
        server = @starter.start(adapter, dir)
        entry = @starter.front ? @starter.front.bind : server.bind
        outcome = Verify.new(bind: server.bind, probe: HttpProbe.new(entry, timeout: 10), headers: @plan.headers || {}).call([@workload]).first
        raise Error, "#{adapter.label}: failed verification (#{outcome.problems.first})" unless outcome.ok
        @store.add_server(record(adapter, server, outcome))
        ctx = Scenarios::Context.new(server: server, workload: @workload, engine: @engine, load: load, dir: dir,
          machine: @plan.machine, starter: @starter, front: @starter.front, headers: @plan.headers || {},
          settle_limit: @plan.load.settle_timeout, baselines: @baselines)
        measurements = @scenario.new.call(ctx).map { |m| m.with(repeat: 1) }
        @slo_ms ||= measurements.last.extra["slo_ms"]
        measurements.each { |m| @store.add_measurement(m) }
        from_summary(adapter, settings, measurements.last).tap { |c| say(c) }
      end

      # The plan's load, its --max-time cut to what is left of this server's
      # share (the sustained scenario bounds its open steps by it).
      #
      # Without --slo the relative default (3 x unloaded p99, at least 100 ms)
      # is taken on the first candidate (the heuristic start) and held for
      # every other: each config is judged against the same bar.
      def load
        changes = {}
        changes[:slo_ms] = @slo_ms if @slo_ms && @plan.load.slo_ms.nil?
        changes[:max_time] = (@deadline - Clock.now).clamp(5.0, [@plan.load.max_time, 5.0].max) if @deadline
        changes.empty? ? @plan.load : LoadOptions.new(**@plan.load.to_h, **changes).freeze
      end

      def from_summary(adapter, settings, summary)
        x = summary.extra
        pss_kb = x["pss_mib"] && (x["pss_mib"] * 1024).round
        status = if x["sustained_rps"].to_f <= 0 then "unsustained"
        elsif pss_kb && pss_kb > @memory_kb then "over-memory"
        else "ok"
        end
        why = {"unsustained" => "no open-model rate held p99 <= #{x["slo_ms"]} ms with < 1% errors",
               "over-memory" => "PSS #{x["pss_mib"]} MiB over the #{(@memory_kb / 1024.0).round} MiB budget"}[status]
        Candidate.new(settings: settings, label: adapter.label, sustained_rps: x["sustained_rps"].to_f, closed_rps: x["closed_max_rps"].to_f,
          p99_ms: x["p99_ms"], pss_kb: pss_kb, closed_pss_kb: x["closed_pss_mib"] && (x["closed_pss_mib"] * 1024).round,
          error_pct: x["error_pct"], mean_ms: x["mean_ms"], service_ms: x["service_ms"] || x["unloaded_ms"], cpu_pct: x["closed_cpu_pct"], resolution: x["resolution"],
          status: status, why: why, rates: [x["sustained_rps"].to_f]).freeze
      end

      def record(adapter, server, outcome)
        {"label" => adapter.label, "name" => adapter.key, "settings" => adapter.settings, "status" => "ok",
         "version" => @version, "command" => server.argv, "bind" => server.bind.to_h,
         "boot_s" => server.boot_s, "cpus" => @plan.machine.server_cpus, "workers" => adapter.workers,
         "verify" => [outcome.to_h], "topology" => {"front" => @starter.front&.to_h}}
      end

      def say(c)
        figures = c.qualifies? ? "sustains #{Report::Format.rps(c.sustained_rps)} req/s, p99 #{c.p99_ms} ms, PSS #{c.pss_mib} MiB" : "#{c.status}: #{c.why}"
        @log.call("  #{c.settings.map { |k, v| "#{k}=#{v}" }.join(" ")}: #{figures} (closed max #{Report::Format.rps(c.closed_rps.to_f)} req/s)")
      end
    end
  end
end
