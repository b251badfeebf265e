# frozen_string_literal: true

require_relative "../launch/database"
require_relative "../probes/cgroup_watch"
require_relative "../probes/noise"
require_relative "../probes/probe_set"
require_relative "../probes/sampler"
require_relative "../probes/spread"
require_relative "../results/measurement"
require_relative "../verdicts/pool_exhaustion"
require_relative "../verdicts/truncated_response"

module Arena
  module Scenarios
    # One measurement (Base#measure): settle, warm up when asked, start the
    # probes, take the queue-time wrapper's counts, run the engine while a
    # block may act on the server, stop the probes (the database last) and
    # build the Results::Measurement. Used once.
    class Measuring
      # What the probes read, in the order they stop (the database apart:
      # it needs the engine's count of requests sent).
      Probed = Struct.new(:server, :front, :loader, :noise, :envelope, :spread, keyword_init: true)

      # scenario: whose key the measurement carries and whose warm-up runs.
      # warm: warm up to a steady state first (Warmup, bounded by --warmup-max).
      # interval: the samplers' period; nil samples at start and stop only.
      def initialize(scenario:, ctx:, settings:, variant: nil, interval: 0.2, per_process: false, warm: false)
        @scenario = scenario
        @ctx = ctx
        @settings = settings
        @variant = variant
        @interval = interval
        @per_process = per_process
        @warm = warm
      end

      # The block, given the engine's run, acts on the server meanwhile; what
      # it returns (or, for a thread, what the thread returns) is the extra.
      def call
        settled = @ctx.settle.call(@ctx.baseline)
        warmed = @scenario.warm(@ctx, @settings) if @warm
        @probes = start_probes
        timing = @ctx.server.timing
        before = timing_before(timing)
        log_from = @ctx.server.log_size
        start_engine
        extra = block_given? ? yield(@run) : nil
        load = @run.wait
        ended_at = Time.now
        extra = extra.value if extra.is_a?(Thread)
        probed = stop_probes
        queue = timing&.since((before.is_a?(Thread) ? before.value : before), ended_at: ended_at)
        pool = pool_verdict(@ctx.server.log_since(log_from), load)
        database = stop_database(load)
        @done = record(load: load, settled: settled, warmed: warmed, probed: probed, queue: queue, pool: pool,
          database: database, extra: extra)
      ensure
        # Interrupted (Ctrl-C) or failed: the engine lives in its own process
        # group, so it must be stopped here, and the probes still running with it.
        [@run, @probes].each { |running| running&.abort } unless @done
      end

      private

      # The probes of one measurement, started (those started stopped again
      # when a later one cannot start).
      def start_probes
        probes = Probes::ProbeSet.new
        probes.read(:noise, Probes::Noise::Watch.new(ours: -> { @ctx.server.pids + (@ctx.front&.pids || []) }))
        # Sampled where each runs (Launch::ServerContract#sampler): here, or on the server host.
        probes.sample(:server, @ctx.server.sampler(interval: @interval, per_process: @per_process))
        probes.sample(:front, @ctx.front&.sampler(interval: @interval))
        # The envelope's cgroup, when the server runs in one: throttling, peak, OOM kills.
        probes.sample(:cgroup, @ctx.server.cgroup&.then { |cgroup| Probes::CgroupWatch.new(cgroup, interval: @interval || 0.2) })
        # The run's throwaway database, when there is one: connections, statements.
        probes.read(:database, Launch::Database.watch(@ctx.session.plan.live_database, @ctx.adapter.label))
        probes
      rescue Exception # rubocop:disable Lint/RescueException -- Ctrl-C too: nothing left sampling
        probes&.abort
        raise
      end

      # Arena's timing wrapper in the server: its counts before. With
      # --queue-time on only the warm-up's requests carry the header (the
      # counted phase goes without the observer): read before the load. With
      # all, read when the warm-up ends, so the split is of the counted phase.
      def timing_before(timing)
        if timing.nil? then nil
        elsif @settings.request_start == :warmup then timing.snapshot
        else
          Thread.new do
            sleep(@settings.warmup.to_f)
            timing.snapshot
          end
        end
      end

      # @run is set before anything else can fail, so that ensure aborts it.
      def start_engine
        @run = @ctx.engine.start(@ctx.target, @settings)
        run = @run
        @probes.sample(:loader, Probes::Sampler.new(pids: -> { run.pids }, interval: @interval))
        @probes.sample(:spread, spread_probe)
      end

      # How the kept-alive connections fell over the server's processes,
      # read once midway through the counted window (Probes::Spread): only
      # where a spread stays put and is the load's own, a closed loop of
      # kept-alive connections straight to a TCP port on this host, with a
      # config whose workers each accept their own; nil otherwise (an open
      # model, keep-alive off, a fixed count of requests, a unix socket, a
      # front, a server host).
      def spread_probe
        return nil unless @ctx.adapter.accepting_workers && @settings.keep_alive && @settings.rate.nil? &&
          @settings.requests.nil? && @settings.reps.nil?
        return nil if @ctx.front || !@ctx.server.bind.tcp? || @ctx.server.local_pids.empty?
        Probes::Spread.new(pids: -> { @ctx.server.local_pids }, port: @ctx.server.bind.port,
          delay: @settings.warmup.to_f + @settings.duration.to_f / 2)
      end

      # Each probe's Results value (the spread: {pid => connections held}), in Probed's order.
      def stop_probes
        Probed.new(server: @probes.stop(:server), front: @probes.stop(:front), loader: @probes.stop(:loader),
          noise: @probes.stop(:noise), envelope: @probes.stop(:cgroup), spread: @probes.stop(:spread))
      end

      # Rails' pool ran dry during the measurement (lib/arena/verdicts/pool_exhaustion.rb)? The pool is
      # database.yml's (max_connections or pool) as the server read it, else RAILS_MAX_THREADS.
      def pool_verdict(log_text, load)
        evidence = Verdicts::PoolExhaustion.evidence(log_text)
        return nil if evidence.timeouts.zero?
        plan = @ctx.session.plan
        given = @ctx.adapter.env(app: plan.app).merge(plan.env || {})["RAILS_MAX_THREADS"]
        pool = Launch::Database.pool(@ctx.adapter, plan.app, plan.env || {})
        Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: load.errors, threads: @ctx.adapter.request_threads,
          pool: pool&.size || given&.to_i, key: pool&.key || "pool")
      end

      # The database counted from before the warm-up: requests sent in both
      # phases (those in flight at the end reached the server too), the
      # warm-up's as the engine counted them. Estimated from the counted
      # rate, a crowded Pitchfork read 1.41 statements for one SELECT; a
      # reading taken when the warm-up ended came late by psql's start-up,
      # and Iodine read 0.46. An engine without the count (a loader host's):
      # the estimate.
      # Read once the server is quiet (Settle#quiet): the requests the
      # engine left in flight at its deadline are still being served, their
      # statements not yet run, and a 1 s load of 83 requests read 78
      # statements for one SELECT each (0.94 a request).
      def stop_database(load)
        @ctx.settle.quiet if @ctx.session.plan.live_database
        warmup_sent = load.warmup_sent || (load.rps * load.warmup_s).round
        @probes.stop(:database, requests: load.sent + warmup_sent)
      end

      def record(load:, settled:, warmed:, probed:, queue:, pool:, database:, extra:)
        Results::Measurement.new(
          server: @ctx.adapter.label, workload: @ctx.workload.name, scenario: @scenario.key, variant: @variant,
          engine_argv: @ctx.engine.argv(@ctx.target, @settings)[1..], load: load,
          probes: probed.server, front_probes: probed.front, loader: probed.loader, envelope: probed.envelope, database: database,
          summary: summary(load, settled, probed, queue, pool),
          extra: (extra || {}).freeze, noise: probed.noise, queue: queue,
          warmup: warmed && Results::WarmupRecord.of(warmed), settings: @settings
        ).freeze
      end

      def summary(load, settled, probed, queue, pool)
        Results::Summary.of(load, settled_s: settled.seconds, settled: settled.settled,
          loader_cpu_pct: probed.loader.cpu_pct, server_cpu_pct: probed.server&.cpu_pct,
          server_cores: @ctx.adapter.machine.server_cores, noisy: probed.noise.noisy?, envelope: probed.envelope, pool: pool,
          queue: queue, slots: @ctx.adapter.declared_slots, service_us: @ctx.baseline&.p50_us,
          spread: probed.spread, processes: @ctx.adapter.accepting_workers,
          fault: Verdicts::TruncatedResponse.verdict(server: @ctx.adapter.key, parse_errors: load.error_kinds["parse"],
            line: load.raw["first_unparsable"]))
      end
    end
  end
end
