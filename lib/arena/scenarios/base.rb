# frozen_string_literal: true

require_relative "figures"

module Arena
  module Scenarios
    # What a scenario gets: its Launch::Session (the running server, the
    # proxy in front, the engine, a directory, the machine, the user's
    # headers, the baselines), the workload and the load options. Through
    # the session it replaces the server after a crash or restart
    # (`restart_server`) or with another config (`replace`).
    Context = Struct.new(:session, :workload, :load, keyword_init: true) do
      def server = session.server

      def front = session.front

      def adapter = server.adapter

      def engine = session.engine

      def dir = session.dir

      def machine = session.machine

      def headers = session.headers

      def baselines = session.baselines

      def settle_limit = load.settle_timeout

      # A fresh server in place of the current one (after a crash or restart).
      def restart_server = session.restart

      # Another config in place of the current one, its files in dir.
      def replace(adapter, dir) = session.replace(adapter, dir)

      # Where clients connect: the proxy when there is one, else the server.
      def entry = front ? front.bind : server.bind

      def target = entry.target(workload.path)

      # Engine settings for this workload; scenarios change what they need.
      def settings(**changes)
        Load::Settings.build(
          **load.engine_settings, method: (workload.method == "GET" || workload.mix?) ? nil : workload.method,
          body_file: body_file, expect_status: workload.expect_status, expect_body: workload.expect_body,
          headers: headers.merge(workload.headers || {}).map { |k, v| "#{k}: #{v}" }, mix_file: workload.mix_file(dir),
          cacert: entry.ca,
          request_start: Probes::QueueTime.header_every(load.queue_time), pipeline: workload.pipeline
        ).with(**changes)
      end

      def body_file = workload.body_file(dir)

      # A server on another host has no processes in this host's /proc: only the probe settles it.
      def settle = Scenarios::Settle.new(pids: -> { server.local_pids }, probe: Verify::HttpProbe.new(entry, timeout: 30), workload: workload,
        headers: headers.merge(workload.headers || {}), limit: settle_limit)

      # The workload's unloaded latency on this server, measured once.
      def baseline = (baselines[[adapter.label, workload.name]] ||= settle.baseline)

      # The p99 objective: the one given, else relative to the workload's
      # unloaded latency, so a 1 s /sleep is not judged by a 100 ms rule.
      def slo_ms
        return load.slo_ms if load.slo_ms
        unloaded = baseline&.p99_us.to_f / 1000
        [100.0, (3 * unloaded).ceil(1)].max
      end
    end

    # Scenarios turn a Context into Results::Measurement values, which the
    # runner writes to the results file as they come. `measure` is the one way
    # to run load: it waits for the server to settle, the probes sample the
    # server (and the engine's own CPU) while the engine runs, and a block may
    # act on the server meanwhile (crash, restart); what it returns (or, for a
    # thread, what the thread returns) is kept as the measurement's extra.
    #
    # A scenario also owns how it is shown: `finding(m)` (one sentence, or
    # nil), `sections(document, colors:)` (report sections with charts), and
    # `throughput_basis?` (its rows are plain closed-model throughput, which
    # recommendations compare).
    class Base
      extend Support::Registry::Member
      # figures, figures_of: the scenario's typed record of its figures (figures.rb).
      extend FigureRecord

      def self.scenario(key, description) = declare(key, description, into: Scenarios)

      def self.throughput_basis? = false

      def self.finding(_measurement) = nil

      def self.sections(_document, colors:) = []

      # Moments to mark on a timeline chart besides the event: [{x:, label:}].
      def self.marks(_measurement) = []

      # Measurements that are one answer repeated over rounds share a key
      # (nil: each is its own); rounds_finding(measurements) words the
      # group once (issue 35: a sweep's knee, not one line per round).
      def self.round_key(_measurement) = nil

      def self.rounds_finding(measurements) = finding(measurements.first)

      # Sentences about the whole run (across server configs), beside the per-measurement finding.
      def self.overall_findings(_document) = []

      def key = self.class.key

      # How long one unit of this scenario takes here (seconds; an upper
      # bound where it stops early), from a Plan::Estimate::Guess: what the
      # estimate before a run adds up and what --max-time is fitted with.
      # Each scenario declares its own, as it knows its own shape.
      def self.seconds(guess) = new.planned(guess.load, guess.adapter) * guess.measurement_s

      # What its bound leaves too short to judge, in words (nil: nothing),
      # said with the estimate.
      def self.shortfall(_guess) = nil

      # The warm-up to a steady state it gets before round 1 (warm_up).
      def self.warm_up_s(_guess) = 0.0

      # A long scenario repeats its measurement within itself (levels, a
      # long timeline): it runs fewer rounds first when time is short.
      def self.long? = false

      # The load setting that bounds one unit of a long scenario, which a
      # run fitted to --max-time may lower (nil: nothing bounds it).
      def self.bound = nil

      # A disruptive scenario leaves the server changed (killed, restarted):
      # the runner starts a fresh one after it.
      def disruptive? = false

      # How many measurements a call will make (an upper bound where the
      # scenario stops early): the progress bar's share of the run.
      def planned(load, _adapter) = load.keep_alive_modes.size

      # Fixed-work scenarios (reps, count) run once per --levels concurrency
      # (or -c alone) and per keep-alive mode.
      module Levels
        def planned(load, _adapter) = levels(load).size * load.keep_alive_modes.size

        def levels(load) = load.levels || [load.connections]

        def each_level(ctx, &block) = levels(ctx.load).product(ctx.load.keep_alive_modes).map(&block)
      end

      # One open-model level at `fraction` of the closed maximum `max`: spare
      # connections, so a late request finds one free instead of being
      # dropped, and long enough for `min_requests` samples within
      # `seconds_left` (never shorter than -d).
      def open_level(ctx, max, fraction, min_requests:, seconds_left:)
        rate = Verdicts::RatePlan.rate_at(max, fraction)
        settings = ctx.settings(rate: rate, connections: [ctx.load.connections * 4, 64].max,
          duration: min_requests.fdiv(rate).ceil.clamp(ctx.load.duration, [seconds_left, ctx.load.duration].max).to_f)
        measure(ctx, settings, variant: "#{(fraction * 100).round}%").then do |m|
          m.with(extra: {"fraction" => fraction, "target_rps" => rate, "closed_max_rps" => max.round(1)})
        end
      end

      def summary_record(ctx, variant, extra)
        Results::Measurement.new(server: ctx.adapter.label, workload: ctx.workload.name, scenario: key, variant: variant,
          kind: "summary", extra: extra.freeze).freeze
      end

      # The warm-up to a steady state a measurement of this scenario gets
      # (Warmup), done apart from it: servers kept up between rounds are all
      # warmed before round 1, so that no round's measurement follows its
      # own warm-up and the rounds are alike (Runner). Returns
      # {variant => Warmup::Result}; {} for a scenario that does not warm up.
      def warm_up(_ctx) = {}

      # warm: warm up to a steady state first (Warmup, bounded by --warmup-max).
      # interval: the samplers' period; nil samples at start and stop only.
      def measure(ctx, settings, variant: nil, interval: 0.2, per_process: false, warm: false)
        settled = ctx.settle.call(ctx.baseline)
        warmed = warm(ctx, settings) if warm
        probes = start_probes(ctx, interval: interval, per_process: per_process)
        # Arena's timing wrapper in the server: its counts before. With
        # --queue-time on only the warm-up's requests carry the header (the
        # counted phase goes without the observer): read before the load. With
        # all, read when the warm-up ends, so the split is of the counted phase.
        timing = ctx.server.timing
        before = if timing.nil? then nil
        elsif settings.request_start == :warmup then timing.snapshot
        else
          Thread.new do
            sleep(settings.warmup.to_f)
            timing.snapshot
          end
        end
        log_from = ctx.server.log_size
        run = ctx.engine.start(ctx.target, settings)
        probes.sample(:loader, Probes::Sampler.new(pids: -> { run.pids }, interval: interval))
        probes.sample(:spread, spread_probe(ctx, settings))
        extra = block_given? ? yield(run) : nil
        load = run.wait
        ended_at = Time.now
        extra = extra.value if extra.is_a?(Thread)
        server = Results::Memory.from_h(probes.stop(:server).to_h)
        front = probes.stop(:front)
        loader_cpu = probes.stop(:loader)
        noise = probes.stop(:noise)
        envelope = probes.stop(:cgroup)
        spread = probes.stop(:spread)
        queue = timing&.since((before.is_a?(Thread) ? before.value : before), ended_at: ended_at)
        pool = pool_verdict(ctx, ctx.server.log_since(log_from), load)
        # The database counted from before the warm-up: requests sent in both
        # phases (those in flight at the end reached the server too), the
        # warm-up's as the engine counted them. Estimated from the counted
        # rate, a crowded Pitchfork read 1.41 statements for one SELECT; a
        # reading taken when the warm-up ended came late by psql's start-up,
        # and Iodine read 0.46. An engine without the count (a loader host's):
        # the estimate.
        warmup_sent = load.warmup_sent || (load.rps * load.warmup_s).round
        database = probes.stop(:database, requests: load.sent + warmup_sent)
        done = Results::Measurement.new(
          server: ctx.adapter.label, workload: ctx.workload.name, scenario: key, variant: variant,
          engine_argv: ctx.engine.argv(ctx.target, settings)[1..], load: load,
          probes: server, front_probes: front && Results::Memory.from_h(front.to_h),
          loader: Results::Memory.from_h(loader_cpu.to_h), envelope: envelope, database: database,
          summary: Results::Summary.of(load, settled_s: settled.seconds, settled: settled.settled,
            loader_cpu_pct: loader_cpu.cpu_pct_mean, server_cpu_pct: server&.cpu_pct,
            server_cores: ctx.adapter.machine.server_cores, noisy: noise.noisy?, envelope: envelope, pool: pool,
            queue: queue, slots: ctx.adapter.declared_slots, service_us: ctx.baseline&.p50_us,
            spread: spread, processes: ctx.adapter.accepting_workers,
            fault: Verdicts::TruncatedResponse.verdict(server: ctx.adapter.key, parse_errors: load.error_kinds["parse"],
              line: load.raw["first_unparsable"])),
          extra: (extra || {}).freeze, noise: noise, queue: queue,
          warmup: warmed && Results::WarmupRecord.of(warmed)
        ).freeze
      ensure
        # Interrupted (Ctrl-C) or failed: the engine lives in its own process
        # group, so it must be stopped here, and the probes still running with it.
        unless done
          run&.abort
          probes&.abort
        end
      end

      # The probes of one measurement, started (those started stopped again
      # when a later one cannot start).
      def start_probes(ctx, interval:, per_process:)
        probes = Probes::ProbeSet.new
        probes.read(:noise, Probes::Noise::Watch.new(ours: -> { ctx.server.pids + (ctx.front&.pids || []) }))
        # Sampled where each runs (Launch::ServerContract#sampler): here, or on the server host.
        probes.sample(:server, ctx.server.sampler(interval: interval, per_process: per_process))
        probes.sample(:front, ctx.front&.sampler(interval: interval))
        # The envelope's cgroup, when the server runs in one: throttling, peak, OOM kills.
        probes.sample(:cgroup, ctx.server.cgroup&.then { |cgroup| Probes::CgroupWatch.new(cgroup, interval: interval || 0.2) })
        # The run's throwaway database, when there is one: connections, statements.
        probes.read(:database, Launch::Database.watch(ctx.session.plan.live_database, ctx.adapter.label))
        probes
      rescue Exception # rubocop:disable Lint/RescueException -- Ctrl-C too: nothing left sampling
        probes&.abort
        raise
      end

      # How the kept-alive connections fell over the server's processes,
      # read once midway through the counted window (Probes::Spread): only
      # where a spread stays put and is the load's own, a closed loop of
      # kept-alive connections straight to a TCP port on this host, with a
      # config whose workers each accept their own; nil otherwise (an open
      # model, keep-alive off, a fixed count of requests, a unix socket, a
      # front, a server host).
      def spread_probe(ctx, settings)
        return nil unless ctx.adapter.accepting_workers && settings.keep_alive && settings.rate.nil? &&
          settings.requests.nil? && settings.reps.nil?
        return nil if ctx.front || !ctx.server.bind.tcp? || ctx.server.local_pids.empty?
        Probes::Spread.new(pids: -> { ctx.server.local_pids }, port: ctx.server.bind.port,
          delay: settings.warmup.to_f + settings.duration.to_f / 2)
      end

      # Settles the server, then loads it in slices until steady (bounded by
      # --warmup-max; a Warmup::Result.skipped when that is 0).
      def warm(ctx, settings, settle: false)
        ctx.settle.call(ctx.baseline) if settle
        # A slice long enough for several responses of a slow endpoint, and
        # for a turn of the closed loop (each slice opens its connections afresh).
        turn = Arena::Run::RoundSize.turn(connections: settings.connections, service_us: ctx.baseline&.p50_us, slots: ctx.adapter.declared_slots)
        slice_s = [Scenarios::Warmup::SLICE_S, 2 * ctx.baseline&.p99_us.to_f / 1e6, turn].max
        Scenarios::Warmup.new(engine: ctx.engine, target: ctx.target, settings: settings, max_s: ctx.load.warmup_limit, slice_s: slice_s,
          turn_s: turn.round(3)).call
      end

      private

      # Rails' pool ran dry during the measurement (lib/arena/verdicts/pool_exhaustion.rb)?
      def pool_verdict(ctx, log_text, load)
        evidence = Verdicts::PoolExhaustion.evidence(log_text)
        return nil if evidence.timeouts.zero?
        given = ctx.adapter.env(app: ctx.session.plan.app).merge(ctx.session.plan.env || {})["RAILS_MAX_THREADS"]
        Verdicts::PoolExhaustion.verdict(evidence: evidence, errors: load.errors, threads: ctx.adapter.request_threads,
          pool: given&.to_i)
      end
    end

    extend Support::Registry

    def self.kind = "scenario"

    def self.load_all = super(__dir__)

    # The scenarios whose rows are plain throughput (steady, reps).
    def self.throughput_basis = all.select(&:throughput_basis?).map(&:key)
  end
end
