# frozen_string_literal: true

require_relative "../launch/session"
require_relative "../launch/starter"
require_relative "../load/engine"
require_relative "../results/store"
require_relative "../stats/median"
require_relative "../support/clock"
require_relative "confirmation"
require_relative "confirmed"

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
      # cores: how many the second ran on (server_cores: the first); why: why it was not measured;
      # pss_kb: the median PSS of `many` over its rounds; stay: the same for
      # your server's best config (staying), measured in the same rounds.
      Result = Struct.new(:factor, :one, :many, :cores, :server_cores, :rounds, :why, :pss_kb, :stay, keyword_init: true) do
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
      def self.unmeasurable(cores:, share:, adapter:, front: nil)
        return "this machine has one core" if cores < 2
        return "#{adapter.key} has no process setting" unless process_key(adapter)
        return "#{adapter.key}'s processes listen on ports of their own: more than one needs --front nginx" if adapter.class.tune_needs_front? && !front
        return "the engine's CPU share was not measured" if share.nil?
        if share > ENGINE_SHARE
          return "the engine's CPU is #{(100 * share).round}% of the server's a request, over #{(100 * ENGINE_SHARE).round}%"
        end
        nil
      end

      # Why a tune that kept no time for them did not measure them: what
      # rules them out here (.unmeasurable), else the command that measures
      # them in their own time (.later).
      def self.unkept(adapter, cores:, measurements:, dir:, seconds:, front: nil)
        why_not(adapter, cores: cores, measurements: measurements, front: front) || later(dir, seconds)
      end

      # .unmeasurable for `adapter`, its engine share read from the search's measurements.
      def self.why_not(adapter, cores:, measurements:, front: nil)
        unmeasurable(cores: cores, share: engine_share(measurements, adapter.label), adapter: adapter, front: front)
      end

      # The cores rounds' seconds for `configs` configs (each on one core and
      # on every core) at the pace of the confirmation's rounds (round_s for
      # `sides` configs), or nil where none was timed.
      def self.rounds_s(round_s, sides:, configs: 1)
        (round_s && sides.to_i.positive?) ? ROUNDS * 2 * configs * round_s / sides : nil
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
      def self.factor(result, one = result.sides[0], many = result.sides[1])
        d = Confirmed.paired(one, many, result.counted_numbers, BAND_PCT)
        return nil unless d.measured?
        [(1 + d.estimate_pct / 100.0).round(3), [(1 + d.low_pct / 100.0).round(3), (1 + d.high_pct / 100.0).round(3)]]
      end

      # rounds: the unflagged rounds to run (ROUNDS; a test runs the fewest that compare).
      def initialize(plan:, store:, engine:, workload:, deadline:, seed:, log: ->(_) {}, rounds: ROUNDS)
        @rounds = rounds
        @plan = plan
        @store = store
        @engine = engine
        @workload = workload
        @deadline = deadline
        @seed = seed
        @log = log
      end

      # adapter, installation: the answer's; stay: [adapter, installation]
      # of your server's best config, measured in the same rounds when it
      # is another config, fair to measure, and the time holds twice the
      # rounds at side_s a config a round -> Result.
      def call(adapter, installation, stay: nil, side_s: nil)
        cores = @plan.machine.cores
        why = why_not(adapter)
        return Result.new(one: adapter, cores: cores, server_cores: @plan.machine.server_cores, why: why).freeze if why
        joined, stay_why = staying(adapter, stay, side_s)
        configs = [[adapter, installation], joined].compact
        result = rounds.call(configs.flat_map { |a, i| sides(a, i, cores, prefix: a.equal?(adapter) ? "" : "stay ") })
        kept = joined ? of(joined.first, result.sides[2, 2], result) : (Result.new(one: stay.first, cores: cores, server_cores: @plan.machine.server_cores, why: stay_why).freeze if stay_why)
        of(adapter, result.sides[0, 2], result, stay: kept)
      end

      private

      def why_not(adapter) = Scaling.why_not(adapter, cores: @plan.machine.cores, measurements: @store.view.measurements, front: @plan.front)

      # [the stay config's [adapter, installation] when it joins the rounds,
      # else nil and why it does not (nil: nothing to say). Not the resume's
      # command: a resume says a tune's measured cores rounds again and
      # would not measure it.]
      def staying(adapter, stay, side_s)
        return [nil, nil] if stay.nil? || stay.first.label == adapter.label
        why = why_not(stay.first)
        return [nil, why] if why
        need = @rounds * 4 * side_s.to_f
        return [nil, "no time left for its rounds beside the answer's"] if side_s && Support::Clock.now + need > @deadline
        [stay, nil]
      end

      # A config on one core and its processes times `cores` on every core, as a pair of sides.
      def sides(adapter, installation, cores, prefix:)
        [Confirmation::Side.of(role: "#{prefix}1 core", adapter: adapter, installation: installation),
          Confirmation::Side.of(role: "#{prefix}#{cores} cores", adapter: Scaling.scaled(adapter, cores), installation: installation)]
      end

      # One config's Result from its pair of sides.
      def of(adapter, (one, many), result, stay: nil)
        Result.new(stay: stay, factor: Scaling.factor(result, one, many), one: adapter, many: many.adapter, cores: @plan.machine.cores, server_cores: @plan.machine.server_cores,
          rounds: result.counted.size, pss_kb: Stats.median(many.pss_kb.values.compact),
          why: (result.counted.size < 3) ? "no time left for its rounds" : nil).freeze
      end

      # Confirmation's rounds, each side under its own plan: the pinned one (a
      # config on one core), and every core shared with the engine.
      def rounds
        shared = @plan.with(machine: @plan.machine.with_cpus("shared"))
        Confirmation.new(plan: @plan, store: @store, engine: @engine, workload: @workload, deadline: @deadline, seed: @seed,
          min_rounds: @rounds, judge: ->(_) { true }, variant: VARIANT, log: ->(line) { @log.call(line.sub("confirmation round", "cores round")) },
          session_for: lambda do |side, i|
            plan = (i.odd? ? shared : @plan).with(load: @plan.load.with(queue_time: "off"))
            Launch::Session.new(plan: plan, adapter: side.adapter, index: 400 + i, starter: Launch::Starter.new(plan: plan),
              engine: Load::Engine.new(dir: plan.out_dir, machine: plan.machine), store: Results::Store::FirstStart.new(@store),
              installation: side.installation)
          end)
      end
    end
  end
end
