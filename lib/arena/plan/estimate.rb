# frozen_string_literal: true

require_relative "plan"

module Arena
  class Plan
    # How long each part of a run takes here, said before anything starts
    # (issue 35: a rate sweep ran 600 s of a 120 s --max-time, and nothing said
    # so beforehand). Pure: a plan in, seconds out; nothing is measured. Each
    # scenario declares its own unit's seconds (Scenarios::Base.seconds, as a
    # k6 executor declares its own duration) from a Guess: the load, the
    # server config and the endpoint's unloaded latency as far as the plan
    # knows it (the built-in /sleep?ms=N says it; anything else is taken as
    # fast). What the run adds around the units (boots, verification, the
    # unloaded baseline, the warm-up before round 1) is counted here.
    module Estimate
      # A measurement beyond its -w and -d: the settle before it (an idle
      # interval and a probe), the engine's start and its JSON, the probes.
      MEASURE_S = 0.6
      # One workload's verification after a boot, besides its request's own latency.
      VERIFY_S = 0.3
      # An endpoint's unloaded latency when the plan cannot tell (a fast one).
      FAST_S = 0.002
      # A boot and its readiness probe on this 2-core machine (as tune's).
      BOOT_S = {rails: 15.0, rack: 2.0}.freeze
      # A server's stop (TERM, its exit), and the reports written at the end.
      STOP_S = 0.5
      REPORT_S = 1.0

      # What a scenario's seconds are read from. closed_max_rps: the most a
      # config can serve of an endpoint this slow (its slots over the latency),
      # capped where the latency says nothing (a fast endpoint).
      Guess = Struct.new(:load, :adapter, :latency_s, :boot_s, :workload, keyword_init: true) do
        def measurement_s(duration = load.duration) = MEASURE_S + latency_s + load.warmup.to_f + duration

        def slots = [adapter.workers.to_i, 1].max * (adapter.request_threads || load.connections)

        def closed_max_rps = [[load.connections, slots].min / latency_s, 20_000.0].min
      end

      # One config x workload x scenario: its seconds in one round.
      # note: what its bound leaves too short to judge (Scenarios::Base.shortfall).
      Unit = Struct.new(:key, :scenario, :seconds, :long, :note, keyword_init: true)

      # The whole run before fitting: `start_s` once (boots, verification,
      # baselines, the warm-up before round 1), then `units` every round.
      Whole = Struct.new(:start_s, :units, keyword_init: true)

      module_function

      # scenarios: what names resolve to (Scenarios, passed from above; a test's own).
      def call(plan, scenarios:)
        boot = boot_s(plan.app)
        start = REPORT_S
        units = plan.servers.flat_map do |adapter|
          start += boot + STOP_S + plan.workloads.sum { |wl| VERIFY_S + latency_s(wl, plan.app) + baseline_s(latency_s(wl, plan.app)) }
          plan.workloads.product(plan.scenarios).map do |wl, name|
            klass = scenarios.fetch(name)
            guess = Guess.new(load: plan.load_for(name), adapter: adapter, latency_s: latency_s(wl, plan.app), boot_s: boot,
              workload: wl.name).freeze
            start += klass.warm_up_s(guess)
            Unit.new(key: "#{adapter.label} #{wl.name} #{name}", scenario: name, seconds: klass.seconds(guess).to_f,
              long: klass.long?, note: klass.shortfall(guess)).freeze
          end
        end
        Whole.new(start_s: start, units: units.freeze).freeze
      end

      def boot_s(app) = BOOT_S.fetch((app.respond_to?(:rails?) && app.rails?) ? :rails : :rack)

      # The built-in app's /sleep?ms=N takes N ms; a mix, or any other path,
      # is taken as fast (the estimate says "about").
      def latency_s(workload, app)
        ms = workload.path.to_s[%r{\A/sleep\?ms=(\d+)}, 1] if app.respond_to?(:builtin) && app.builtin
        ms ? [ms.to_i / 1000.0, FAST_S].max : FAST_S
      end

      # Settle#baseline: probes for 0.5 s and until 20, but at most 5 s once
      # it has 3.
      def baseline_s(latency_s) = (20 * latency_s).clamp(0.5, [5.0, 3 * latency_s].max) + latency_s
    end
  end
end
