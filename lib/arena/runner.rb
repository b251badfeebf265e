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
      @verifier = verifier
      @scenarios = scenarios
      @failures = []
    end

    def call
      @reporter.planned(@plan, planned_count)
      @plan.servers.each_with_index do |adapter, i|
        run_server(adapter, i)
        break if @root_not_found
      end
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
      session = ServerSession.new(plan: @plan, adapter: adapter, index: index + 1, starter: @starter, engine: @engine,
        store: @store, installation: installation, verifier: @verifier)
      return fail_server(session, "#{adapter.label}: not installed (#{installation.why})") unless installation.found
      good = session.start(@plan.workloads)
      @reporter.server_started(session.record)
      good.each { |workload| run_workload(session, workload) }
    rescue ServerSession::Unverified => e
      @root_not_found = root_not_found?(e.outcomes)
      fail_server(session, @root_not_found ? root_hint(adapter, index) : e.message)
    rescue ServerRun::Failed => e
      fail_server(session, e.message, log_tail: e.log_tail)
    rescue Error => e
      fail_server(session, e.message)
    ensure
      session&.stop
    end

    def run_workload(session, workload)
      @plan.scenarios.each do |name|
        scenario = @scenarios.fetch(name).new
        @plan.repeat.times do |i|
          session.run(scenario, workload).each do |measurement|
            measurement = measurement.with(repeat: i + 1)
            @store.add_measurement(measurement)
            @reporter.measured(measurement)
          end
        end
      end
    end

    # A user's app whose only workload, /, answered 404: Arena loads / when
    # no --workload is given, and every other server would fail the same way
    # (the app answers, not the server). Said once, with what to pass.
    def root_not_found?(outcomes)
      !@plan.app.builtin && outcomes.size == 1 && outcomes.first.workload == "/" && outcomes.first.status == 404
    end

    def root_hint(adapter, index)
      left = @plan.servers.size - index - 1
      "the app answers / with 404 (under #{adapter.label}); / is what Arena loads without --workload: name your app's " \
        "paths, e.g. --workload /items/7 (repeatable; PATH=STATUS for another status), or a requests file " \
        "(--requests FILE)#{"; the other #{left} server(s) were not started" if left.positive?}"
    end

    # One server's failure is recorded (beside its start record when it had
    # started: what was measured stands) and the run goes on.
    def fail_server(session, message, log_tail: nil)
      @failures << message
      record = session.fail(message, log_tail: log_tail)
      @reporter.server_failed(record.label, message, record.log_tail)
      nil
    end
  end
end
