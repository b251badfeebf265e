# frozen_string_literal: true

require_relative "../launch/starter"
require_relative "../load/engine"
require_relative "../support/clock"
require_relative "kept_up_rounds"
require_relative "precision"
require_relative "restarted_rounds"

module Arena
  module Run
    # Carries out a Plan in rounds. A round runs every config x workload x
    # scenario once, in an order shuffled per round (Rounds, from the run's
    # seed); a measurement flagged `noisy` is run again once at the end of its
    # round. Results go to the store as they are measured; the reporter hears of
    # each step. Its collaborators are passed in (with defaults), as Puma's
    # Launcher takes its own.
    #
    # Between rounds the servers stay up (`--between-rounds keep`, the
    # default): every config is started and verified once, the rounds run
    # across all of them, and they stop at the end. `restart` starts each
    # config afresh every round (servers in a shuffled order, one at a time);
    # there a noisy measurement is run again at the end of its server's turn in
    # the round, before that server stops. The plan chooses (Runner.rounds_for:
    # Run::KeptUpRounds or Run::RestartedRounds, two subclasses of Run::Strategy,
    # which holds the steps they share), for a local run and a remote one alike
    # (each config gets a starter of its own from new_starter). The Runner
    # chooses, reports the plan and the end, and cleans up the starters. Why
    # keep is the default, with the measurements behind it: README, "Rounds".
    #
    # One server's failure never ends the run (Run::Strategy records it and
    # goes on). Only Ctrl-C ends it early, and the reports are still written.
    #
    # Reporter protocol (every reporter answers all of these):
    #   planned(plan, total)          before anything starts; total = measurements planned
    #   server_started(server)        a server answered and was verified (Results::ServerRecord)
    #   server_failed(label, message, log_tail)
    #   measured(measurement)         one Results::Measurement is in the store
    #   timed(key, round, words)      a unit shortened or not started: --max-time would have passed
    #   finished(document, interrupted:)  the Results::Document
    class Runner
      MAX_ROUNDS = Run::Precision::MAX_ROUNDS

      # One config's place in the run: its session (nil before it starts), the
      # workloads that verified, and whether it failed.
      Slot = Struct.new(:adapter, :index, :installation, :session, :workloads, :failed, keyword_init: true)

      # The round strategy the plan chose (Plan#keep_up?, from --between-rounds):
      # a Run::Strategy subclass.
      def self.rounds_for(plan) = plan.keep_up? ? Run::KeptUpRounds : Run::RestartedRounds

      # verifier: (server bind, entry bind) -> Verify; scenarios: what names resolve to;
      # new_starter: -> a starter (Launch::StarterContract) for each server start: Launch::Starter
      # here, Remote::Starter for --server-host (Remote::Session#runner_options).
      def initialize(plan:, reporter:, store:, engine: nil, verifier: nil, scenarios: Scenarios, new_starter: nil)
        @plan = plan
        @reporter = reporter
        @store = store
        @scenarios = scenarios
        @starters = []
        new_starter ||= -> { Launch::Starter.new(plan: plan) }
        @rounds = self.class.rounds_for(plan).new(plan: plan, reporter: reporter, store: store,
          engine: engine || Load::Engine.new(dir: plan.out_dir, machine: plan.machine), verifier: verifier, scenarios: scenarios,
          # Each starter kept, to be cleaned up when the run ends.
          new_starter: -> { new_starter.call.tap { |s| @starters << s } })
      end

      def call
        started = Support::Clock.now
        @reporter.planned(@plan, planned_count)
        slots = @plan.servers.each_with_index.map do |adapter, i|
          Slot.new(adapter: adapter, index: i + 1, installation: adapter.class.install(@plan.app))
        end
        @rounds.call(slots, started: started)
        finish(interrupted: false)
        self
      rescue Interrupt
        finish(interrupted: true)
        raise
      ensure
        @starters.uniq.each(&:cleanup)
      end

      def keep_up? = @rounds.is_a?(Run::KeptUpRounds)

      # Each server's failure, in the order they came.
      def failures = @rounds.failures

      private

      def finish(interrupted:)
        @store.finish(interrupted: interrupted)
        @reporter.finished(@store.view, interrupted: interrupted)
      end

      def planned_count
        per_server = @plan.servers.map do |adapter|
          @plan.scenarios.sum do |name|
            klass = @scenarios.fetch(name)
            klass.new.planned(@plan.load, adapter) * @plan.rounds_for(klass.long?)
          end
        end
        per_server.sum * @plan.workloads.size
      end
    end
  end
end
