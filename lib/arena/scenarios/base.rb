# frozen_string_literal: true

module Arena
  module Scenarios
    # What a scenario gets: the running server, the workload, the engine, the
    # plan's load options, and a directory for its files.
    Context = Struct.new(:server, :workload, :engine, :load, :dir, :machine, :restarter, :front, keyword_init: true) do
      def adapter = server.adapter

      # A fresh server in place of the current one (after a crash or restart).
      def restart_server
        self.server = restarter.call
      end

      # Where clients connect: the proxy when there is one, else the server.
      def entry = front ? front.bind : server.bind

      def target = entry.target(workload.path)

      # Engine settings for this workload; scenarios change what they need.
      def settings(**changes)
        Load::Settings.build(
          connections: load.connections, duration: load.duration, warmup: load.warmup, timeout: load.timeout,
          threads: load.threads, method: (workload.method == "GET") ? nil : workload.method,
          body_file: body_file, expect_status: workload.expect_status, expect_body: workload.expect_body
        ).with(**changes)
      end

      def body_file
        return nil unless workload.body
        path = File.join(dir, "body-#{workload.name.gsub(/\W/, "_")}")
        File.write(path, workload.body) unless File.exist?(path)
        path
      end
    end

    # Scenarios turn a Context into measurement records (plain hashes, written
    # to the results file as they are). `measure` is the one way to run load:
    # the probes sample the server while the engine runs, and a block may act
    # on the server meanwhile (crash, restart); what it returns (or, for a
    # thread, what the thread returns) is kept as the record's "extra".
    class Base
      extend Registry::Member

      def self.scenario(key, description) = declare(key, description, into: Scenarios)

      def key = self.class.key

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

      def summary_record(ctx, variant, fields)
        {"server" => ctx.adapter.label, "workload" => ctx.workload.name, "scenario" => key,
         "variant" => variant, "kind" => "summary"}.merge(fields)
      end

      def measure(ctx, settings, variant: nil, interval: 0.2)
        sampler = Probes::Sampler.new(pids: -> { ctx.server.pids }, interval: interval).start
        front = ctx.front && Probes::Sampler.new(pids: -> { ctx.front.pids }, interval: interval).start
        run = ctx.engine.start(ctx.target, settings)
        extra = block_given? ? yield(run) : nil
        result = run.wait
        extra = extra.value if extra.is_a?(Thread)
        done = record(ctx, result, sampler.stop, variant: variant, settings: settings, extra: extra)
          .merge(front ? {"front_probes" => front.stop.to_h} : {})
      ensure
        # Interrupted (Ctrl-C) or failed: the engine lives in its own process
        # group, so it must be stopped here, and the samplers with it.
        unless done
          run&.abort
          [sampler, front].compact.each(&:stop)
        end
      end

      def record(ctx, result, probes, variant:, settings:, extra: nil)
        {
          "server" => ctx.adapter.label, "workload" => ctx.workload.name, "scenario" => key,
          "variant" => variant, "engine_argv" => ctx.engine.argv(ctx.target, settings)[1..],
          "load" => result.raw, "probes" => probes.to_h, "extra" => extra
        }.compact
      end
    end

    extend Registry

    def self.kind = "scenario"

    def self.load_all = super(__dir__)
  end
end
