# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"
require "timeout"

module Arena
  # The search on a synthetic response surface: a fake measurer that answers
  # each settings point with a rate from a known function, memory from
  # another, and time spent on a fake clock.
  class TuneSearchTest < Minitest::Test
    cover "Arena::Tune::Search*"
    cover "Arena::Tune::Candidate*"

    class FakeClock
      attr_accessor :now

      def initialize = @now = 0.0
    end

    # rate(workers, threads) peaks at workers=3, threads=8; memory 60 MiB
    # per worker plus 2 MiB per thread.
    class Surface
      attr_reader :calls

      def initialize(clock:, rate: nil, memory_mib: nil, budget_mib: 10_000, jitter: 0.0, seconds: 10.0, interrupt_after: nil)
        @clock = clock
        @rate = rate || ->(w, t) { 1000.0 - 40 * (w - 3)**2 - 40 * (t - 8).abs }
        @memory = memory_mib || ->(w, t) { 40 + 60 * w + 2 * t * [w, 1].max }
        @budget = budget_mib
        @jitter = jitter
        @seconds = seconds
        @interrupt_after = interrupt_after
        @calls = []
        @flip = 1
      end

      def call(settings)
        raise Interrupt if @interrupt_after && @calls.size >= @interrupt_after
        @calls << settings
        @clock.now += @seconds
        w, t = settings.values_at("workers", "threads")
        t ||= 1
        @flip = -@flip
        rate = @rate.call(w, t) * (1 + @flip * @jitter)
        pss = @memory.call(w, t)
        status = (pss > @budget) ? "over-memory" : "ok"
        Tune::Candidate.new(settings: settings, sustained_rps: rate, closed_rps: rate * 1.1, pss_kb: pss * 1024, status: status,
          resolution: 0.01, elapsed_s: @seconds, rates: [rate]).freeze
      end
    end

    def space(workers: 0..8, threads: 1..32, start: {"workers" => 1, "threads" => 5})
      dims = [Tune::Dimension.new(name: "workers", min: workers.begin, max: workers.end),
        Tune::Dimension.new(name: "threads", min: threads.begin, max: threads.end)]
      Tune::Space.new(dimensions: dims, start: start)
    end

    # A search that still runs after 5 s on a synthetic surface never ends.
    def search(surface, clock, **kw)
      Timeout.timeout(5) { Tune::Search.new(space: kw.delete(:space) || space, evaluate: surface, clock: clock, min_noise: 0.02, **kw).call }
    end

    # The whole path on a small surface, worked by hand: rate(w, t) = 1000 -
    # 40 (w - 3)^2 - 40 |t - 6|, noise 2%. From (1, 2) at 680 (measured twice:
    # the noise): workers double to 2 (800) and 4 (800: no gain); threads
    # double to 4 (880) and 8 (880: no gain); refining threads between 2, 4
    # and 8 tries 3 (840), then 6 (960: the best), then 5 and 7 (920 each).
    # Round two: workers 4 and 1 at 6 threads (960, 840), then the midpoint
    # 3 (1,000: the best); round three finds nothing above it. The runner-up
    # among the 960s is the one with the least memory, (2, 6).
    def test_the_search_path_on_a_small_surface
      clock = FakeClock.new
      surface = Surface.new(clock: clock, rate: ->(w, t) { 1000.0 - 40 * (w - 3)**2 - 40 * (t - 6).abs }, memory_mib: ->(w, t) { 50 + 10 * w + t })
      outcome = search(surface, clock, space: space(workers: 0..4, threads: 1..8, start: {"workers" => 1, "threads" => 2}))
      path = [[1, 2], [1, 2], [2, 2], [4, 2], [2, 4], [2, 8], [2, 3], [2, 6], [2, 5], [2, 7], [4, 6], [1, 6], [3, 6], [3, 8], [3, 3], [3, 4], [3, 7]]
      assert_equal path, surface.calls.map { |s| s.values_at("workers", "threads") }
      assert_equal({"workers" => 3, "threads" => 6}, outcome.best.settings)
      assert_equal({"workers" => 2, "threads" => 6}, outcome.runner_up.settings)
      assert_equal [0.02, "converged"], [outcome.noise, outcome.stopped]
      assert_in_delta 40.0 / 960, outcome.margin, 1e-12
      refute outcome.within_noise?
      assert_nil outcome.difference, "one figure each: no test"
      assert_equal path.uniq.size, outcome.candidates.size
      assert_equal [680.0, 680.0], outcome.candidates.first.rates, "the start measured twice"
    end

    def test_finds_the_optimum_measuring_a_fraction_of_the_grid
      clock = FakeClock.new
      surface = Surface.new(clock: clock)
      outcome = search(surface, clock)
      assert_equal({"workers" => 3, "threads" => 8}, outcome.best.settings)
      assert_equal "converged", outcome.stopped
      grid = 9 * 32
      assert_operator surface.calls.uniq.size, :<, grid / 10, "measured #{surface.calls.uniq.size} of #{grid} points"
      refute_nil outcome.runner_up
      assert_operator outcome.margin, :>, 0
    end

    # rounds: 3 judges a lead by the significance test on three figures a
    # side: on a flat surface with noise nothing is a real gain (the start
    # stays best and the margin is "within the noise"); on the real surface
    # the optimum is still found.
    def test_with_rounds_a_lead_counts_only_when_significant
      clock = FakeClock.new
      rng = Random.new(3)
      flat = Surface.new(clock: clock, rate: ->(_w, _t) { 1000.0 * (1 + 0.05 * (rng.rand - 0.5)) })
      outcome = search(flat, clock, rounds: 3)
      assert_equal({"workers" => 1, "threads" => 5}, outcome.best.settings, "no step on a flat surface is a real gain")
      assert_operator outcome.best.rates.size, :>=, 3
      assert outcome.within_noise?, "the runner-up is not distinguishable from the best"
      assert_match(/not distinguishable here/, outcome.difference.reason) if outcome.difference

      clock = FakeClock.new
      outcome = search(Surface.new(clock: clock, jitter: 0.01), clock, rounds: 3)
      assert_equal({"workers" => 3, "threads" => 8}, outcome.best.settings)
      assert_operator outcome.best.rates.size, :>=, 3
    end

    def test_respects_the_memory_budget
      clock = FakeClock.new
      # The unconstrained optimum (3 workers x 8 threads) uses 236 MiB; 200 allows 2 workers.
      surface = Surface.new(clock: clock, budget_mib: 200)
      outcome = search(surface, clock)
      assert_operator outcome.best.pss_kb / 1024, :<=, 200
      assert_equal 2, outcome.best.settings["workers"]
      assert outcome.candidates.any? { |c| c.status == "over-memory" }, "the search tried beyond the budget and refused it"
      assert outcome.candidates.select(&:qualifies?).all? { |c| c.pss_kb / 1024 <= 200 }
    end

    def test_stops_on_noise
      clock = FakeClock.new
      # A flat surface with +-4% jitter: no step gains more than the noise the repeat measures.
      surface = Surface.new(clock: clock, rate: ->(w, t) { 500.0 + w + t * 0.1 }, jitter: 0.04)
      outcome = search(surface, clock)
      assert_operator outcome.noise, :>=, 0.07
      # The start twice, then one step each way per setting, then the midpoints: no walk across the space.
      assert_operator surface.calls.size, :<=, 10
      assert outcome.within_noise?, "the winner's margin is reported as within the noise"
    end

    def test_keeps_the_best_when_interrupted
      clock = FakeClock.new
      surface = Surface.new(clock: clock, interrupt_after: 4)
      outcome = search(surface, clock)
      assert_equal "interrupted", outcome.stopped
      assert_equal 3, outcome.candidates.size # the start (measured twice) and two more
      measured_best = outcome.candidates.select(&:qualifies?).max_by(&:score)
      assert_equal measured_best.settings, outcome.best.settings
    end

    def test_stops_at_the_deadline
      clock = FakeClock.new
      surface = Surface.new(clock: clock, seconds: 10.0)
      outcome = search(surface, clock, deadline: 45.0)
      assert_equal "time", outcome.stopped
      assert_operator clock.now, :<=, 45.0
      refute_nil outcome.best
    end

    def test_clamps_the_heuristic_start_into_the_space
      s = space(workers: 0..2, start: {"workers" => 4, "threads" => 64})
      assert_equal({"workers" => 2, "threads" => 32}, s.start)
    end

    def test_adapters_declare_their_tunables
      machine = Machine.new(cores: 3) # 2 server cores when pinned
      puma = Tune::Space.for(Servers.fetch("puma"), machine: machine)
      assert_equal [["workers", 0, 4], ["threads", 1, 32]], puma.dimensions.map { |d| [d.name, d.min, d.max] }
      assert_equal({"workers" => 2, "threads" => 5}, puma.start)
      unicorn = Tune::Space.for(Servers.fetch("unicorn"), machine: machine)
      assert_equal [["workers", 1, 8]], unicorn.dimensions.map { |d| [d.name, d.min, d.max] }
      assert_equal({"workers" => 4}, unicorn.start) # 2 x 1.5 + 1
      assert Tune::Space.for(Servers.fetch("webrick"), machine: machine).empty?
    end

    def test_runtime_settings_are_tunables_of_every_mri_server_with_tune_runtime
      machine = Machine.new(cores: 2)
      names = Tune::Space.for(Servers.fetch("unicorn"), machine: machine, runtime: Runtime::NONE).dimensions.map(&:name)
      expected = ["workers", ("yjit" if defined?(RubyVM::YJIT)), ("jemalloc" if Runtime.jemalloc_path)].compact
      assert_equal expected, names
      fixed = Tune::Space.for(Servers.fetch("unicorn"), machine: machine, runtime: Runtime.parse("yjit,malloc=glibc"))
      assert_equal ["workers"], fixed.dimensions.map(&:name), "a runtime the user fixed is not searched"
      assert_equal ["yjit"], Tune::Space.runtime_tokens({"workers" => 2, "yjit" => 1, "jemalloc" => 0})
      assert_equal({"workers" => 2}, Tune::Space.adapter_settings({"workers" => 2, "yjit" => 1}))
    end
  end
end
