# frozen_string_literal: true

require_relative "../load/settings"
require_relative "../probes/queue_time"
require_relative "../results/measurement"
require_relative "../support/registry"
require_relative "../verdicts/rate_plan"
require_relative "../verify/http_probe"
require_relative "figures"
require_relative "measuring"
require_relative "round_size"
require_relative "settle"
require_relative "warmup"

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
    # nil, for the reports), `brief(m)` (its line in the terminal),
    # `sections(document, colors:)` (report sections with charts), and
    # `throughput_basis?` (its rows are plain closed-model throughput, which
    # recommendations compare).
    class Base
      extend Support::Registry::Member
      # figures, figures_of: the scenario's typed record of its figures (figures.rb).
      extend FigureRecord

      def self.scenario(key, description) = declare(key, description, into: Scenarios)

      # A load setting only this scenario reads, declared where it is read
      # (Load::SETTING's fields): its `arena run` flag and help, arena.yml key
      # and Load::Options member come from Load::TABLE, which gathers every
      # scenario's rows. No engine flag: the rows every engine run passes
      # are the shared ones (Load::ROWS).
      def self.setting(name, flag:, type:, help:, default: nil, check: nil)
        (@setting_rows ||= []) << Load::SETTING.new(name: name, flag: flag, type: type, default: default, check: check, help: help)
      end

      # The rows this scenario declared, in their order.
      def self.setting_rows = @setting_rows || []

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

      # The finding's line in the terminal: [word, text], which
      # Report::BriefFindings sets after the config's label, at most 100
      # columns in all, its figures to three significant figures
      # (Support::Short): "crash  killed a worker at 2 s: replaced, 0 errors".
      # `finding` stays the whole sentence, which report.md and report.html
      # give under that line. nil: no short form (the sentence is cut to fit).
      def self.brief(_measurement) = nil

      def self.rounds_brief(measurements) = brief(measurements.first)

      # "not measured: REASON" where the reason fits the line, else where to read it.
      def self.not_measured(reason) = (reason.to_s.size <= 56) ? "not measured: #{reason}" : "not measured (report.md says why)"

      # The terminal's lines for overall_findings, one each, in their order:
      # [who, word, text]; labels: a config's full label -> its short one.
      def self.overall_briefs(_document, _labels) = []

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

      # The load setting the user bounds one unit of a long scenario with,
      # which a run fitted to --max-time may lower (nil: nothing bounds it).
      # A sweep's is :max_time, and its unit reads the bound as its load's
      # unit_bound_s (Load::Options#lowered): --max-time given is the whole run's.
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

      # What a session hands this scenario to run or warm up with (Launch::Session#run).
      def context(session, workload:, load:) = Context.new(session: session, workload: workload, load: load)

      # One measurement (Measuring): settle, warm up when warm, probes
      # sampling every `interval` (nil: at start and stop only), the engine
      # run with settings while the block acts on the server.
      def measure(ctx, settings, variant: nil, interval: 0.2, per_process: false, warm: false, &block)
        Measuring.new(scenario: self, ctx: ctx, settings: settings, variant: variant, interval: interval,
          per_process: per_process, warm: warm).call(&block)
      end

      # Settles the server, then loads it in slices until steady (bounded by
      # --warmup-max; a Warmup::Result.skipped when that is 0).
      def warm(ctx, settings, settle: false)
        ctx.settle.call(ctx.baseline) if settle
        # A slice long enough for several responses of a slow endpoint, and
        # for a turn of the closed loop (each slice opens its connections afresh).
        turn = RoundSize.turn(connections: settings.connections, service_us: ctx.baseline&.p50_us, slots: ctx.adapter.declared_slots)
        slice_s = [Scenarios::Warmup::SLICE_S, 2 * ctx.baseline&.p99_us.to_f / 1e6, turn].max
        Scenarios::Warmup.new(engine: ctx.engine, target: ctx.target, settings: settings, max_s: ctx.load.warmup_limit, slice_s: slice_s,
          turn_s: turn.round(3)).call
      end
    end

    extend Support::Registry

    def self.kind = "scenario"

    # A scenario owns load settings too: Load.gather places its rows.
    def self.register(klass) = super.tap { Load.own(klass) }

    def self.load_all = super(__dir__)

    # The scenarios whose rows are plain throughput (steady, reps).
    def self.throughput_basis = all.select(&:throughput_basis?).map(&:key)
  end
end
