# frozen_string_literal: true

require_relative "../core"
require_relative "../launch/local_server"
require_relative "../launch/session"
require_relative "../load/settings"
require_relative "../plan/budget"
require_relative "../results/document"
require_relative "../support/clock"
require_relative "precision"

module Arena
  module Run
    # The steps both round strategies share, as Puma's Runner holds them for
    # Single and Cluster: a server's start and verification, the units a
    # round runs, a round's measurements (a noisy one run again), --precision's
    # rounds, --max-time's clock and each server's failure. A subclass says
    # how servers and rounds interleave (run_rounds(slots)), the load a unit
    # runs with in a round (load_for(unit, round)) and the warm-up record that
    # goes with a unit's first measurement (warmup(key, variant)); the Runner
    # chooses one and calls it once.
    #
    # One server's failure never ends the run: a failed boot or verification, a
    # fresh start that fails after a crash, an engine or proxy failure mid-run
    # are each recorded as that server's failure, with its log tail, its later
    # units are skipped, and the run goes on.
    # The cuts in_time records name the settings they lowered by key; a
    # results file read back words each by its flag.
    Results::Document.flags { |key| Load.setting(key)&.switch }

    class Strategy
      # One scenario of one workload on one config (Runner::Slot): what a round runs.
      Unit = Struct.new(:slot, :workload, :scenario, keyword_init: true) do
        def key = "#{slot.adapter.label} #{workload.name} #{scenario}"
      end

      attr_reader :failures

      # reporter: hears of servers started and failed, measurements and cuts
      # (Runner's reporter protocol); new_starter: -> a starter for each start.
      def initialize(plan:, reporter:, store:, engine:, verifier:, scenarios:, new_starter:)
        @plan = plan
        @reporter = reporter
        @store = store
        @engine = engine
        @verifier = verifier
        @scenarios = scenarios
        @new_starter = new_starter
        @failures = []
        @precision = Run::Precision.new(plan: plan, store: store)
      end

      # started: when the run began (--max-time is counted from it).
      def call(slots, started:)
        @started = started
        run_rounds(slots)
      end

      private

      # A user's app answered / with 404: no further server is started.
      def stopped? = @root_not_found || false

      # A start (a fresh one each round when restarted) and its verification.
      def start(slot, store: @store)
        slot.session = Launch::Session.new(plan: @plan, adapter: slot.adapter, index: slot.index, starter: @new_starter.call,
          engine: @engine, store: store, installation: slot.installation, verifier: @verifier)
        return fail_server(slot, "#{slot.adapter.label}: not installed (#{slot.installation.why})") unless slot.installation.found
        guarded(slot) do
          first = slot.workloads.nil?
          slot.workloads = slot.session.start(@plan.workloads)
          @reporter.server_started(slot.session.record) if first
        rescue Launch::Session::Unverified => e
          @root_not_found = root_not_found?(e.outcomes)
          fail_server(slot, @root_not_found ? root_hint(slot.adapter, slot.index - 1) : e.message)
        end
      end

      # round: only the units that run in it (a run fitted to its time may
      # give long scenarios fewer rounds: Plan#rounds_for).
      def units_of(slots, round: nil)
        names = @plan.scenarios.select { |name| round.nil? || @plan.rounds_for(@scenarios.fetch(name).long?) >= round }
        slots.reject(&:failed).flat_map do |slot|
          Array(slot.workloads).product(names).map { |wl, name| Unit.new(slot: slot, workload: wl, scenario: name) }
        end
      end

      # Each unit once; then once more those whose load was disturbed (a noisy
      # measurement is kept, flagged, and left out of the interval). A run of
      # one round makes no interval: it reports what it measured, flagged. A
      # long scenario is not run again: its levels or timeline repeat the
      # measurement within, and a second sweep would double its time.
      def run_round(units, round)
        noisy = units.select { |unit| run_unit(unit, round).any?(&:noisy?) && !@scenarios.fetch(unit.scenario).long? }
        return if rounds < 2
        noisy.each { |unit| run_unit(unit, round, rerun: true) }
      end

      # --precision's rounds (Precision#rounds), over the servers still in the run.
      def precision_rounds(slots, &block) = @precision.rounds(units: -> { units_of(slots) }, spent: -> { spent? }, &block)

      # The block's answer; nil when it raised a server's failure (a failed
      # start, warm-up, engine or proxy), recorded as the slot's (fail_server).
      def guarded(slot)
        yield
      rescue Launch::LocalServer::Failed => e
        fail_server(slot, e.message, log_tail: e.log_tail)
      rescue Error => e
        fail_server(slot, e.message)
      end

      def rounds = @plan.rounds || 1

      def seed = @plan.round_seed || 0

      # The whole run's --max-time is spent (no further round can start).
      def spent? = @plan.budget&.given && Support::Clock.now - @started >= @plan.budget.budget_s

      # The unit's measurements ([] when it did not run, or its server failed).
      def run_unit(unit, round, rerun: false)
        return [] if unit.slot.failed
        guarded(unit.slot) { measure(unit, round, rerun) } || []
      end

      def measure(unit, round, rerun)
        load = in_time(unit, round, @plan.load_for(unit.scenario, load_for(unit, round))) or return []
        scenario = @scenarios.fetch(unit.scenario).new
        unit.slot.session.run(scenario, unit.workload, load: load).map do |measurement|
          measurement = measurement.with(repeat: round, rerun: rerun || nil)
          warmed = warmup(unit.key, measurement.variant)
          measurement = measurement.with(warmup: warmed) if warmed
          @precision.add(unit.key, measurement) if measurement.measured? && scenario.class.throughput_basis?
          @store.add_measurement(measurement)
          @reporter.measured(measurement)
          measurement
        end
      end

      # --max-time bounds the whole run: a unit whose estimated seconds
      # (Plan::Budget) would end past it runs with its own bound lowered to the
      # time left, or is not started, and said (Plan::Budget.now); a unit
      # already running is never cut. Returns the load to run with, or nil.
      def in_time(unit, round, load)
        fit = @plan.budget
        return load unless fit&.given
        left = fit.budget_s - (Support::Clock.now - @started)
        answer = Plan::Budget.now(fit, key: unit.key, scenario: unit.scenario, left_s: left)
        return load if answer == :go
        need = fit.unit_s.fetch(unit.key, 0.0)
        @store.add_cut(key: unit.key, round: round, need_s: need.round(1), left_s: left.round(1), lowered: answer&.transform_keys(&:to_s))
        why = "about #{need.round} s needed, #{[left, 0].max.round} s left of --max-time #{fit.budget_s.round} s"
        unless answer
          @reporter.timed(unit.key, round, "not started: #{why}")
          return nil
        end
        setting, value = answer.first
        @reporter.timed(unit.key, round, "#{Load.setting(setting).switch} lowered to #{value.round} s: #{why}")
        load.lowered(answer)
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
      # started: what was measured stands), its later units are skipped, and
      # the run goes on.
      def fail_server(slot, message, log_tail: nil)
        slot.failed = true
        record = slot.session.fail(message, log_tail: log_tail)
        @failures << record.error
        slot.session.stop
        @reporter.server_failed(record.label, record.error, record.log_tail)
        nil
      end
    end
  end
end
