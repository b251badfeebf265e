# frozen_string_literal: true

module Arena
  # Carries out a Plan: for each server config, start, verify, run every
  # scenario on every workload that verified, stop. Results go to the store as
  # they are measured; the reporter hears of each step. Its collaborators are
  # passed in (with defaults), as Puma's Launcher takes its own.
  #
  # One server's failure never ends the run: a failed boot or verification, a
  # fresh start that fails after a crash, an engine or proxy failure mid-run
  # are each recorded as that server's failure, with its log tail, and the
  # run goes on. Only Ctrl-C ends it early, and the reports are still written.
  #
  # Reporter protocol (every reporter answers all of these):
  #   planned(plan, total)          before anything starts; total = measurements planned
  #   server_started(server)        a server answered and was verified (Results::ServerRecord)
  #   server_failed(label, message, log_tail)
  #   measured(measurement)         one Results::Measurement is in the store
  #   finished(document, interrupted:)  the Results::Document
  class Runner
    attr_reader :failures

    # verifier: (server bind, entry bind) -> Verify; scenarios: what names resolve to.
    def initialize(plan:, reporter:, store:, engine: nil, starter: nil, verifier: nil, scenarios: Scenarios)
      @plan = plan
      @reporter = reporter
      @store = store
      @engine = engine || Load::Engine.new(dir: plan.out_dir, machine: plan.machine)
      @starter = starter || ServerStarter.new(plan: plan)
      @verifier = verifier || ->(bind, entry) { Verify.new(bind: bind, probe: HttpProbe.new(entry, timeout: 10), headers: plan.headers || {}) }
      @scenarios = scenarios
      @failures = []
    end

    def call
      @reporter.planned(@plan, planned_count)
      @plan.servers.each_with_index { |adapter, i| run_server(adapter, i) }
      finish(interrupted: false)
      self
    rescue Interrupt
      finish(interrupted: true)
      raise
    ensure
      @starter.cleanup
    end

    private

    def finish(interrupted:)
      @store.finish(interrupted: interrupted)
      @reporter.finished(@store.view, interrupted: interrupted)
    end

    def planned_count
      per_server = @plan.servers.map do |adapter|
        @plan.scenarios.sum { |name| @scenarios.fetch(name).new.planned(@plan.load, adapter) }
      end
      per_server.sum * @plan.workloads.size * @plan.repeat
    end

    def run_server(adapter, index)
      installation = adapter.class.install(@plan.app)
      return fail_server(adapter, "#{adapter.label}: not installed (#{installation.why})", installation: installation) unless installation.found
      dir = File.join(@plan.out_dir, "servers", format("%02d-%s", index + 1, adapter.label.gsub(/[^\w.=-]+/, "_")))
      server = @starter.start(adapter, dir)
      record = server_record(adapter, installation, server)
      good = verified(record, server)
      return fail_server(adapter, "#{adapter.label}: failed verification (#{first_problem(record)})", installation: installation, record: record) if good.empty?
      @store.add_server(record.merge("status" => "ok"))
      @reporter.server_started(Results::ServerRecord.from_h(record))
      baselines = {}
      good.each { |workload| run_workload(workload, dir, baselines) }
    rescue ServerRun::Failed => e
      fail_server(adapter, e.message, log_tail: e.log_tail, installation: installation, record: record, after_start: !record.nil?)
    rescue Error => e
      fail_server(adapter, e.message, log_tail: @starter.server&.group&.log_tail || [], installation: installation, record: record,
        after_start: !record.nil?)
    ensure
      @starter.stop
    end

    def verified(record, server)
      entry = @starter.front ? @starter.front.bind : server.bind
      outcomes = @verifier.call(server.bind, entry).call(@plan.workloads)
      record["verify"] = outcomes.map(&:to_h)
      record["topology"] = {"front" => @starter.front&.to_h}
      @plan.workloads.select { |wl| outcomes.find { |o| o.workload == wl.name }&.ok }
    end

    def first_problem(record) = record["verify"].flat_map { |v| v["problems"] }.first

    def run_workload(workload, dir, baselines)
      @plan.scenarios.each do |name|
        scenario = @scenarios.fetch(name).new
        @plan.repeat.times do |i|
          ctx = Scenarios::Context.new(server: @starter.server, workload: workload, engine: @engine, load: @plan.load,
            dir: dir, machine: @plan.machine, starter: @starter, front: @starter.front, headers: @plan.headers || {},
            settle_limit: @plan.load.settle_timeout, baselines: baselines)
          scenario.call(ctx).each do |measurement|
            measurement = measurement.with(repeat: i + 1)
            @store.add_measurement(measurement)
            @reporter.measured(measurement)
          end
          @starter.restart(@starter.server) if scenario.disruptive?
        end
      end
    end

    def server_record(adapter, installation, server)
      {
        "label" => adapter.label, "name" => adapter.key, "settings" => adapter.settings,
        "version" => installation.version, "source" => installation.source,
        "command" => server.argv, "bind" => server.bind.to_h, "boot_s" => server.boot_s,
        "cpus" => @plan.machine.server_cpus, "workers" => adapter.workers
      }
    end

    # A failure after the server was recorded as started (a fresh start, the
    # engine, the proxy) is recorded beside it: what was measured stands.
    def fail_server(adapter, message, installation:, log_tail: [], record: nil, after_start: false)
      record ||= {"label" => adapter.label, "version" => installation&.version, "source" => installation&.source}.compact
      @failures << message
      @store.add_server(record.merge("status" => "failed", "error" => message, "log_tail" => log_tail,
        "failed_after_start" => after_start || nil).compact)
      @reporter.server_failed(adapter.label, message, log_tail)
      nil
    end
  end
end
