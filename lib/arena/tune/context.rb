# frozen_string_literal: true

require_relative "../bundle/app_digest"
require_relative "../launch/starter"
require_relative "../load/engine"
require_relative "../report/labels"
require_relative "../results/host_facts"
require_relative "../results/store"
require_relative "../results/tune_document"
require_relative "../results/tune_resume"
require_relative "budget"
require_relative "output"
require_relative "space"
require_relative "trial"

module Arena
  module Tune
    # What every phase of a tune works with, made once when it opens: the
    # plan, the command's options, the results store, the tune's own output,
    # the engine and the starter; where lines go; and the one place a Trial
    # is made. What it started (trials, finalists kept up) it stops in #close,
    # however the tune ends.
    Context = Struct.new(:plan, :options, :err, :store, :output, :constraints, :engine, :starter, keyword_init: true)

    class Context
      # Opens the results file and the tune's output (tune.json): ground is
      # the Prelude's.
      def self.open(ground, options:, err:)
        plan = ground.plan
        constraints = Results::TuneConstraints.of(plan, memory_mib: Budget.mib(options.memory))
        environment = Results::HostFacts.capture(machine: plan.machine, engine_version: Load::Engine.version)
        store = Results::Store.new(path: File.join(plan.out_dir, "results.json"), environment: environment,
          plan: plan.to_h.merge(tune: constraints.to_record))
        output = Output.new(dir: plan.out_dir, constraints: constraints, machine: plan.machine,
          workload: plan.workloads.first, rackup: File.basename(plan.app.rackup), app: plan.app)
        output.resume = Results::TuneResume::Recipe.new(argv: options.argv, cwd: options.cwd, discovered: ground.discovered,
          digest: Bundle::AppDigest.of(plan.app)).freeze
        new(plan: plan, options: options, err: err, store: store, output: output, constraints: constraints,
          engine: Load::Engine.new(dir: plan.out_dir, machine: plan.machine), starter: Launch::Starter.new(plan: plan))
      end

      def say(line) = err.puts(line)

      def detail(line) = (say(line) if options.verbose)

      def log = ->(line) { say line }

      def labels = @labels ||= Report::Labels.new(nil, machine: plan.machine)

      # The rounds' order seed: the plan's, else one for the whole tune.
      def seed = @seed ||= plan.round_seed || Random.new_seed

      def workload = plan.workloads.first

      def space_for(adapter) = Space.searched(adapter, machine: plan.machine, tune_runtime: options.tune_runtime)

      # The one place a Trial is made: a server's configs measured in this
      # tune (plan: the tune's, or one with a load of its own).
      def trial(adapter:, installation:, plan: self.plan, deadline: nil)
        Trial.new(plan: plan, adapter: adapter, installation: installation, workload: workload, store: store, engine: engine,
          starter: starter, memory_kb: options.memory / 1024, deadline: deadline, log: log).tap { |t| trials << t }
      end

      # A finalist whose server is kept up: stopped in #close if still up.
      def hold(finalist) = finalist.tap { held << finalist }

      # Every trial's configs and every finalist still up stopped, the starter cleaned up.
      def close
        trials.each(&:close)
        held.each { |f| f.session&.stop }
        starter.cleanup
      end

      private

      # What was started, to stop in #close.
      def trials = @trials ||= []

      def held = @held ||= []
    end
  end
end
