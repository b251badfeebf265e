# frozen_string_literal: true

module Arena
  module Tune
    # What the answer becomes on more cores: the answer's config on the
    # server's one core (the engine on its own) against the same config
    # with its processes times the machine's cores, on every core (the
    # engine beside it), in paired rounds of their own (Confirmation's: a
    # fresh start each, shuffled, a speed reading before each). Their
    # ratio, with its interval, is the scaling factor: where memory
    # bandwidth, the GVL and a shared database show.
    #
    # Measured only where it is fair: a machine of two cores or more, a
    # server with a process setting, and an engine whose CPU per request is
    # under ENGINE_SHARE of the server's (measured in the search: beside the
    # server it takes that share of the cores being measured).
    class Scaling
      ROUNDS = 6
      ENGINE_SHARE = 0.05
      # The settings that count a server's processes, in the order looked for.
      PROCESSES = %w[workers count processes pool servers].freeze
      BAND_PCT = 3.0
      # Its rounds' measurements in results.json, apart from the confirmation's.
      VARIANT = "cores"

      # factor: [ratio, [low, high]] or nil; one, many: the two configs (adapters);
      # cores: how many the second ran on; why: why it was not measured.
      Result = Struct.new(:factor, :one, :many, :cores, :rounds, :why, keyword_init: true) do
        def measured? = !factor.nil?
      end

      # The engine's CPU per request against the server's, from the search's
      # closed-maximum measurements of `label` (their median), or nil.
      def self.engine_share(measurements, label)
        shares = measurements.filter_map do |m|
          next unless m.server == label && m.variant == "closed-max"
          engine = m.summary&.loader_cpu_pct
          server = m.probes&.cpu_pct
          engine.to_f / server if engine && server.to_f.positive?
        end
        Stats.median(shares)
      end

      # Why the scaling cannot be measured here, in a few words, or nil.
      def self.unmeasurable(cores:, share:, adapter:)
        return "this machine has one core" if cores < 2
        return "#{adapter.key} has no process setting" unless process_key(adapter)
        return "the engine's CPU share was not measured" if share.nil?
        if share > ENGINE_SHARE
          return "the engine's CPU is #{(100 * share).round}% of the server's a request, over #{(100 * ENGINE_SHARE).round}%"
        end
        nil
      end

      # Why a tune that kept no time for them did not measure them: what
      # rules them out here (.unmeasurable), else the command that measures
      # them in their own time (.later).
      def self.unkept(adapter, cores:, measurements:, dir:, seconds:)
        why_not(adapter, cores: cores, measurements: measurements) || later(dir, seconds)
      end

      # .unmeasurable for `adapter`, its engine share read from the search's measurements.
      def self.why_not(adapter, cores:, measurements:)
        unmeasurable(cores: cores, share: engine_share(measurements, adapter.label), adapter: adapter)
      end

      # The cores rounds' seconds at the pace of the confirmation's rounds
      # (round_s for `sides` configs), or nil where none was timed.
      def self.rounds_s(round_s, sides:)
        (round_s && sides.to_i.positive?) ? ROUNDS * 2 * round_s / sides : nil
      end

      # Why a tune did not measure them, and the command that does, in its
      # own time (Resume): "no time in this tune; `arena tune --resume DIR
      # --max-time 90` measures it".
      def self.later(dir, seconds)
        "no time in this tune; `arena tune --resume #{dir} --max-time #{(seconds / 10.0).ceil * 10}` measures it"
      end

      def self.process_key(adapter) = PROCESSES.find { |k| adapter.class.tunables.key?(k) }

      # The adapter with its processes times `cores` (Puma's single mode counts one).
      def self.scaled(adapter, cores)
        key = process_key(adapter)
        n = [adapter.settings[key].to_i, 1].max * cores
        adapter.class.new(settings: adapter.settings.merge(key => n.to_s), machine: adapter.machine, runtime: adapter.runtime,
          envelope: adapter.envelope)
      end

      # The rounds' paired ratio, many against one: [ratio, [low, high]], or nil.
      def self.factor(result)
        one, many = result.sides
        d = Confirmed.paired(one, many, result.counted_numbers, BAND_PCT)
        return nil unless d.measured?
        [(1 + d.estimate_pct / 100.0).round(3), [(1 + d.low_pct / 100.0).round(3), (1 + d.high_pct / 100.0).round(3)]]
      end

      def initialize(plan:, store:, engine:, workload:, deadline:, seed:, log: ->(_) {})
        @plan = plan
        @store = store
        @engine = engine
        @workload = workload
        @deadline = deadline
        @seed = seed
        @log = log
      end

      # adapter, installation: the answer's -> Result.
      def call(adapter, installation)
        cores = @plan.machine.cores
        why = Scaling.unmeasurable(cores: cores, share: Scaling.engine_share(@store.view.measurements, adapter.label), adapter: adapter)
        return Result.new(one: adapter, cores: cores, why: why).freeze if why
        many = Scaling.scaled(adapter, cores)
        sides = [Confirmation::Side.of(role: "1 core", adapter: adapter, installation: installation),
          Confirmation::Side.of(role: "#{cores} cores", adapter: many, installation: installation)]
        result = rounds.call(sides)
        Result.new(factor: Scaling.factor(result), one: adapter, many: many, cores: cores, rounds: result.counted.size,
          why: (result.counted.size < 3) ? "no time left for its rounds" : nil).freeze
      end

      private

      # Confirmation's rounds, each side under its own plan: the pinned one, and every core shared with the engine.
      def rounds
        shared = @plan.with(machine: @plan.machine.with_cpus("shared"))
        plans = {false => @plan, true => shared}
        Confirmation.new(plan: @plan, store: @store, engine: @engine, workload: @workload, deadline: @deadline, seed: @seed,
          min_rounds: ROUNDS, judge: ->(_) { true }, variant: VARIANT, log: ->(line) { @log.call(line.sub("confirmation round", "cores round")) },
          session_for: lambda do |side, i|
            plan = plans.fetch(i.positive?).with(load: @plan.load.with(queue_time: "off"))
            Launch::Session.new(plan: plan, adapter: side.adapter, index: 400 + i, starter: Launch::Starter.new(plan: plan),
              engine: Load::Engine.new(dir: plan.out_dir, machine: plan.machine), store: Results::Store::FirstStart.new(@store),
              installation: side.installation)
          end)
      end
    end
  end
end
