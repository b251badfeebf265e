# frozen_string_literal: true

require_relative "../core"
require_relative "../results/document"
require_relative "../verify/http_probe"
require_relative "../verify/verify"

module Arena
  module Launch
    # One server config's life, the same for `arena run`, `arena tune` and
    # rounds: start it through the run's starter (local or remote, with nginx in
    # front if planned), verify its workloads, record it in the results store
    # and hand each scenario its Context. The starter owns the processes; the
    # session owns what is known of them (its directory, its record, its
    # baselines), so neither Runner nor Tune::Trial restates any of it.
    #
    # The whole API ("start config, run scenario, keep up or stop"):
    #   session = Launch::Session.new(plan:, adapter:, index:, starter:, engine:, store:, installation:,
    #                               verifier: nil, baselines: {})
    #   session.start(workloads)  -> the workloads that verified; the server is up and recorded as
    #                                started. Raises Launch::LocalServer::Failed (with its log tail) or Error when
    #                                it cannot start, Unverified (an Error) when no workload verified;
    #                                the caller then calls fail(e.message) and stop.
    #   session.run(scenario, workload, load: plan.load) -> [Results::Measurement] of one scenario
    #                                call (not stored: the caller numbers and stores them). After a
    #                                disruptive scenario the next run starts on a fresh server
    #                                (a failed fresh start raises there, after what was measured).
    #   session.warm_up(scenario, workload, load: plan.load) -> {variant => Warmup::Result}: the
    #                                scenario's warm-up to a steady state alone (servers kept up).
    #   session.fail(message, log_tail: nil) -> the failed Results::ServerRecord; records it, beside the start
    #                                record when it had started (what was measured stands).
    #   session.stop              stops the server and its front; start may be called again after.
    #   session.record            Results::ServerRecord, nil before start
    #   session.server, session.front, session.dir, session.adapter
    class Session
      # outcomes: every workload's Verify::Outcome (what the server answered).
      class Unverified < Error
        attr_reader :outcomes

        def initialize(message, outcomes: [])
          super(message)
          @outcomes = outcomes
        end
      end

      attr_reader :adapter, :dir, :record, :engine, :plan, :baselines

      # index: the config's number in the run (its directory is NN-label);
      # verifier: (server bind, entry bind) -> Verify, for tests' fakes;
      # baselines: unloaded latencies by [label, workload], shared across sessions when given.
      def initialize(plan:, adapter:, index:, starter:, engine:, store:, installation:, verifier: nil, baselines: {})
        @plan = plan
        @adapter = adapter
        @starter = starter
        @engine = engine
        @store = store
        @installation = installation
        @verifier = verifier || ->(bind, entry) { Verify.new(bind: bind, probe: Verify::HttpProbe.new(entry, timeout: 10), headers: headers) }
        @baselines = baselines
        @dir = File.join(plan.out_dir, "servers", format("%02d-%s", index, adapter.label.gsub(/[^\w.=-]+/, "_")))
      end

      def start(workloads)
        @record = nil
        @recorded = @disrupted = false
        server = @starter.start(@adapter, @dir)
        @record = started_record(server)
        entry = front ? front.bind : server.bind
        outcomes = @verifier.call(server.bind, entry).call(workloads)
        @record = @record.with(verify: outcomes.map { |o| Results::VerifyRecord.new(workload: o.workload, ok: o.ok, problems: o.problems).freeze })
        good = workloads.select { |wl| outcomes.find { |o| o.workload == wl.name }&.ok }
        raise Unverified.new("#{@adapter.label}: failed verification (#{outcomes.flat_map(&:problems).first})", outcomes: outcomes) if good.empty?
        @store.add_server(@record)
        @recorded = true
        good
      end

      def run(scenario, workload, load: @plan.load)
        if @disrupted
          @disrupted = false
          restart
        end
        ctx = scenario.context(self, workload: workload, load: load)
        measurements = scenario.call(ctx)
        @disrupted = scenario.disruptive?
        # Its leftover requests served before anything else runs on its cores:
        # a server kept up beside others must not spill into their turns.
        ctx.settle.quiet unless @disrupted
        measurements
      end

      # The scenario's warm-up alone, no measurement (Scenarios::Base#warm_up):
      # {variant => Warmup::Result}; servers kept up are warmed before round 1.
      def warm_up(scenario, workload, load: @plan.load) = scenario.warm_up(scenario.context(self, workload: workload, load: load))

      # A failure after the start (the engine could not connect, a warm-up
      # failed) says first the line of the server's log that explains it,
      # when one does: Iodine's [BUG] segfault under TLS showed only its
      # memory map, and a line cut at 100 columns showed only the engine's
      # "cannot connect".
      def fail(message, log_tail: nil)
        log_tail ||= server&.log_tail || []
        crash = server&.crash_line
        message = "its log: #{crash}; #{message}" if crash && !message.include?(crash)
        base = @record || Results::ServerRecord.new(label: @adapter.label, name: @adapter.key, settings: @adapter.settings,
          version: @installation&.version, source: @installation&.source, status: "failed", log_tail: [], verify: [],
          envelope: envelope)
        base.failing(message, log_tail: log_tail, after_start: @recorded).tap { |failed| @store.add_server(failed) }
      end

      def stop = @starter.stop

      def server = @starter.server

      def front = @starter.front

      def headers = @plan.headers || {}

      def machine = @plan.machine

      # A fresh server with the same config, after a crash or restart.
      def restart = @starter.restart(server)

      # Another config in place of the current one (worker-cost's counts).
      def replace(adapter, dir)
        @starter.stop
        @starter.start(adapter, dir)
      end

      private

      def started_record(server)
        Results::ServerRecord.new(label: @adapter.label, name: @adapter.key, settings: @adapter.settings,
          version: @installation&.version, source: @installation&.source, command: shown_command(server), bind: server.bind.to_h,
          boot_s: server.boot_s, boot_retry: server.boot_retry, cpus: machine.server_cpus, workers: @adapter.workers, status: "ok", log_tail: [],
          verify: [], front: front&.to_h, envelope: envelope).freeze
      end

      # Rails' knobs as the server got them, in front of its command (lib/arena/servers/rails_knobs.rb).
      def shown_command(server) = Servers::RailsKnobs.shown(server.argv, @adapter.env(app: @plan.app).merge(@plan.env || {}))

      # The config's CPU quota and memory limit as recorded, nil without one.
      def envelope = (@adapter.envelope.to_h if @adapter.envelope.bounded?)
    end
  end
end
