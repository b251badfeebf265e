# frozen_string_literal: true

require "arena"
require "arena/tune"

module Arena
  # Response surfaces of known truth for the tune search, and a scripted
  # bench that answers each measurement with the truth times lognormal noise
  # (each measurement on its own: no drift shared by neighbours in time, so
  # pairing buys nothing and the search meets the noise whole). A surface
  # names its space, its true rate at each point, its memory (a point over
  # the budget does not qualify), and the figures a first look reports for
  # the model (CPU per request, time a request holds a slot), which may be
  # right, missing or wrong.
  module TuneSurfaces
    class FakeClock
      attr_accessor :now

      def initialize = @now = 0.0
    end

    Surface = Struct.new(:name, :dimensions, :start, :truth, :memory_mib, :budget_mib, :figures, keyword_init: true) do
      def space = Tune::Space.new(dimensions: dimensions.map { |n, r| Tune::Dimension.new(name: n, min: r.begin, max: r.end) }, start: start)

      def points = dimensions.map { |_, r| r.to_a }.then { |(first, *rest)| first.product(*rest) }.map { |v| dimensions.map(&:first).zip(v).to_h }

      def qualifies?(settings) = memory_mib.call(settings) <= budget_mib

      # The best true rate of any point that qualifies.
      def optimum = points.select { |s| qualifies?(s) }.map { |s| truth.call(s) }.max

      # Within 3% of the optimum's throughput.
      def hit?(settings) = !settings.nil? && truth.call(settings) >= 0.97 * optimum
    end

    # A scripted measurer: `call` is a first look (a Candidate), `round` one
    # more figure of a config for a paired comparison.
    class Bench
      attr_reader :looks, :rounds

      def initialize(surface, rng:, noise:, clock: FakeClock.new, look_s: 30.0, round_s: 3.0)
        @surface = surface
        @rng = rng
        @noise = noise
        @clock = clock
        @look_s = look_s
        @round_s = round_s
        @looks = 0
        @rounds = 0
      end

      def call(settings)
        @looks += 1
        @clock.now += @look_s
        rate = figure(settings)
        pss = @surface.memory_mib.call(settings)
        status = (pss > @surface.budget_mib) ? "over-memory" : "ok"
        extra = @surface.figures&.call(settings, rate) || {}
        Tune::Candidate.new(settings: settings, label: settings.map { |k, v| "#{k}=#{v}" }.join(","), sustained_rps: rate,
          closed_rps: rate, pss_kb: (pss * 1024).round, status: status, resolution: 0.01, elapsed_s: @look_s, rates: [rate], **extra).freeze
      end

      def round(settings)
        @rounds += 1
        @clock.now += @round_s
        figure(settings)
      end

      def measurements = @looks + @rounds

      private

      # Lognormal noise of sd `noise` (Box-Muller).
      def figure(settings)
        z = Math.sqrt(-2 * Math.log(1 - @rng.rand)) * Math.cos(2 * Math::PI * @rng.rand)
        @surface.truth.call(settings) * Math.exp(@noise * z)
      end
    end

    module_function

    # A rate that rises by a factor drawn from 5-10% each step from `from`
    # up to `to`, flat elsewhere; the factors are the surface's own (rng).
    def rising(rng, from:, to:)
      gains = (from...to).to_h { |w| [w + 1, 1.05 + 0.05 * rng.rand] }
      ->(w) { (from + 1..[w, to].min).reduce(100.0) { |r, s| r * gains.fetch(s) } }
    end

    # The first look's figures of an app whose request costs cpu_ms of CPU
    # and holds a slot service_ms (Little's law then predicts cores x
    # service / cpu slots), as Trial's Candidate carries them.
    def app_figures(cpu_ms:, service_ms:)
      ->(_settings, rate) { {cpu_pct: (rate * cpu_ms / 10.0).round(1), service_ms: service_ms, mean_ms: service_ms} }
    end

    WORKERS = ->(s) { s["workers"] }

    # The issue's surfaces and the new ones, for a search on `cores` (2).
    # figures: :right (the model predicts the optimum), :none, or :wrong.
    def all(rng, figures: :none)
      one = [["workers", 1..16]]
      io8 = {right: app_figures(cpu_ms: 10.0, service_ms: 40.0), none: nil, wrong: app_figures(cpu_ms: 10.0, service_ms: 15.0)}
      rise8 = rising(rng, from: 1, to: 8)
      rise10 = rising(rng, from: 4, to: 10)
      rise5 = rising(rng, from: 1, to: 5)
      rise12 = rising(rng, from: 1, to: 12)
      flat_mem = ->(_s) { 100 }
      [
        Surface.new(name: "rising 5-10% a step to workers 8", dimensions: one, start: {"workers" => 2},
          truth: ->(s) { rise8.call(s["workers"]) }, memory_mib: flat_mem, budget_mib: 1000, figures: io8.fetch(figures)),
        Surface.new(name: "flat to 4, then rising to 10", dimensions: one, start: {"workers" => 2},
          truth: ->(s) { rise10.call(s["workers"]) }, memory_mib: flat_mem, budget_mib: 1000,
          figures: {right: app_figures(cpu_ms: 10.0, service_ms: 50.0), none: nil, wrong: app_figures(cpu_ms: 10.0, service_ms: 10.0)}.fetch(figures)),
        Surface.new(name: "two identical configs", dimensions: [["workers", 1..2]], start: {"workers" => 1},
          truth: ->(_s) { 100.0 }, memory_mib: flat_mem, budget_mib: 1000, figures: nil),
        Surface.new(name: "a peak at 5, falling 4% a step past it", dimensions: one, start: {"workers" => 2},
          truth: ->(s) { rise5.call(s["workers"]) * 0.96**[s["workers"] - 5, 0].max }, memory_mib: flat_mem, budget_mib: 1000,
          figures: {right: app_figures(cpu_ms: 10.0, service_ms: 25.0), none: nil, wrong: app_figures(cpu_ms: 10.0, service_ms: 80.0)}.fetch(figures)),
        Surface.new(name: "rising to 12, a memory cliff past 7", dimensions: one, start: {"workers" => 2},
          truth: ->(s) { rise12.call(s["workers"]) }, memory_mib: ->(s) { 150 + 60 * s["workers"] }, budget_mib: 600,
          figures: {right: app_figures(cpu_ms: 10.0, service_ms: 60.0), none: nil, wrong: app_figures(cpu_ms: 10.0, service_ms: 10.0)}.fetch(figures)),
        Surface.new(name: "workers x threads, I/O-bound (75% waiting)", dimensions: [["workers", 0..4], ["threads", 1..32]],
          start: {"workers" => 2, "threads" => 5},
          # Each process runs Ruby on one core at most (the GVL); a slot holds a request 40 ms, 10 of them on the CPU;
          # every thread costs 0.3% (scheduling, memory).
          truth: ->(s) {
            p = [s["workers"], 1].max
            [[p, 2].min * 100.0, p * s["threads"] * 25.0].min * (1 - 0.003 * s["threads"])
          },
          memory_mib: ->(s) { 80 + 60 * [s["workers"], 1].max + 2 * s["threads"] }, budget_mib: 2000,
          figures: io8.fetch(figures))
      ]
    end

    # Searches `surface` `times` times (seeded); the share that ended within
    # 3% of the optimum, the share that declared the best apart from its
    # runner-up, and the mean number of measurements. search: (space, bench, clock, rng) -> Outcome.
    def hit_rate(surface_index, times:, seed:, noise: 0.05, figures: :none, &search)
      hits = apart = measurements = looks = seconds = 0
      times.times do |i|
        rng = Random.new(seed * 7919 + i)
        surface = all(rng, figures: figures)[surface_index]
        clock = FakeClock.new
        bench = Bench.new(surface, rng: rng, noise: noise, clock: clock)
        outcome = search.call(surface.space, bench, clock, rng)
        hits += 1 if surface.hit?(outcome.best&.settings)
        apart += 1 if outcome.best && outcome.runner_up && !outcome.within_noise?
        measurements += bench.measurements
        looks += bench.looks
        seconds += clock.now
      end
      {hits: hits.fdiv(times), apart: apart.fdiv(times), measurements: measurements.fdiv(times), looks: looks.fdiv(times),
       seconds: seconds.fdiv(times)}
    end
  end
end
