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

      def initialize(clock:, rate: nil, memory_mib: nil, budget_mib: 10_000, jitter: 0.0, seconds: 10.0, interrupt_after: nil, figures: {})
        @figures = figures
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
        figures = {settings: settings, sustained_rps: rate, closed_rps: rate * 1.1, pss_kb: pss * 1024, status: status,
                   resolution: 0.01, elapsed_s: @seconds, rates: [rate]}.merge(@figures)
        Tune::Candidate.new(**figures).freeze
      end
    end

    def space(workers: 0..8, threads: 1..32, start: {"workers" => 1, "threads" => 5})
      dims = [Tune::Dimension.new(name: "workers", min: workers.begin, max: workers.end),
        Tune::Dimension.new(name: "threads", min: threads.begin, max: threads.end)]
      Tune::Space.new(dimensions: dims, start: start)
    end

    # A search that still runs after 5 s on a synthetic surface never ends.
    def search(surface, clock, **kw)
      Timeout.timeout(5) { Tune::Search.new(space: kw.delete(:space) || space, evaluate: surface, clock: clock, min_noise: 0.02, cores: 2, rng: Random.new(1), **kw).call }
    end

    # The model on a worked example: the start (1 worker, 5 threads) used
    # 50% of a core at a closed maximum of 100 req/s (5 ms of CPU a
    # request) and a request held its slot 20 ms: 2 cores x 20 / 5 = 8 slots
    # keep the cores busy, a worker per core with 4 threads each. The
    # prediction is the second config measured, and meets the start head to
    # head in interleaved rounds (both once per round).
    def test_the_model_predicts_the_second_config
      clock = FakeClock.new
      surface = Surface.new(clock: clock, rate: ->(w, t) { 100.0 * w.clamp(1, 2) * [t, 4].min / 4.0 },
        figures: {cpu_pct: 50.0, closed_rps: 100.0, service_ms: 20.0})
      outcome = search(surface, clock, space: space(workers: 0..4, threads: 1..32, start: {"workers" => 1, "threads" => 5}))
      assert_equal({slots: 8.0, settings: {"workers" => 2, "threads" => 4}}, outcome.model)
      assert_equal [[1, 5], [2, 4]], surface.calls.first(2).map { |s| s.values_at("workers", "threads") }
      first = outcome.duels.first
      assert_equal [{"workers" => 1, "threads" => 5}, {"workers" => 2, "threads" => 4}], [first.a, first.b]
      assert_equal first.a_rates.size, first.b_rates.size, "every round measures both"
      assert first.won?
      assert_equal 2, outcome.best.settings["workers"]
      assert_in_delta 200.0, outcome.best.sustained_rps, 1e-9
    end

    def test_saturating_slots_and_the_predicted_point
      c = Tune::Candidate.new(settings: {}, cpu_pct: 150.0, closed_rps: 300.0, service_ms: 20.0)
      assert_in_delta 8.0, Tune::Capacity.saturating_slots(c, cores: 2), 1e-9, "5 ms of CPU, 20 ms in service, 2 cores"
      assert_in_delta 2.0, Tune::Capacity.saturating_slots(c.with(service_ms: 2.0), cores: 2), 1e-9, "never under a slot per core"
      assert_nil Tune::Capacity.saturating_slots(c.with(cpu_pct: nil), cores: 2)
      assert_nil Tune::Capacity.saturating_slots(c.with(service_ms: nil), cores: 2)
      two = space(workers: 0..4, threads: 1..32, start: {"workers" => 1, "threads" => 5})
      assert_equal({"workers" => 2, "threads" => 4}, two.predicted(slots: 8.0, cores: 2))
      assert_equal({"workers" => 2, "threads" => 4}, two.predicted(slots: 8.04, cores: 2), "a shade over 8 is 8")
      assert_equal({"workers" => 2, "threads" => 5}, two.predicted(slots: 9.0, cores: 2))
      processes = Tune::Space.new(dimensions: [Tune::Dimension.new(name: "pool", min: 1, max: 8)], start: {"pool" => 4})
      assert_equal({"pool" => 6}, processes.predicted(slots: 5.5, cores: 2))
      assert_equal({"pool" => 8}, processes.predicted(slots: 50.0, cores: 2), "clamped to its bound")
      fibers = Tune::Space.new(dimensions: [Tune::Dimension.new(name: "count", min: 1, max: 4)], start: {"count" => 1}, bounded: false)
      assert_equal({"count" => 2}, fibers.predicted(slots: 8.0, cores: 2), "no slot ceiling: a process per core")
    end

    def test_finds_the_optimum_of_a_smooth_surface
      clock = FakeClock.new
      outcome = search(Surface.new(clock: clock), clock)
      assert_equal({"workers" => 3, "threads" => 8}, outcome.best.settings)
      assert_equal "converged", outcome.stopped
      refute_nil outcome.runner_up
      refute outcome.within_noise?
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

    # Interrupted in the first duel (the start's look, the next step's,
    # then rounds): the best so far is kept, and the looks are what was measured.
    def test_keeps_the_best_when_interrupted
      clock = FakeClock.new
      surface = Surface.new(clock: clock, interrupt_after: 4)
      outcome = search(surface, clock)
      assert_equal "interrupted", outcome.stopped
      assert_equal [{"workers" => 1, "threads" => 5}, {"workers" => 2, "threads" => 5}], outcome.candidates.map(&:settings)
      assert_equal({"workers" => 1, "threads" => 5}, outcome.best.settings, "the challenger never finished its duel")
      assert_equal [1, 1], [outcome.duels.first.a_rates.size, outcome.duels.first.b_rates.size]
    end

    # uWSGI's workers segfaulted at boot in every config, and each was
    # still tried: a second failure ends the search, with the failures kept.
    def test_a_server_that_fails_twice_is_not_searched_further
      clock = FakeClock.new
      failing = Class.new(Surface) do
        def call(settings)
          super
          Tune::Candidate.failed(settings, "not ready: [BUG] Segmentation fault", elapsed_s: 30.0)
        end
      end
      surface = failing.new(clock: clock)
      outcome = search(surface, clock)
      assert_equal ["failed", 2, nil], [outcome.stopped, surface.calls.size, outcome.best]
      assert_equal ["not ready: [BUG] Segmentation fault"] * 2, outcome.candidates.map(&:why)
    end

    # A start looked at before (arena tune looks at every server's start
    # first) is not measured again; its time counts toward the deadline's
    # mean look, and a round is expected to take round_s until one is measured.
    def test_a_start_looked_at_before
      clock = FakeClock.new
      surface = Surface.new(clock: clock, seconds: 10.0)
      start = {"workers" => 1, "threads" => 5}
      first = surface.call(start)
      surface.calls.clear
      outcome = search(surface, clock, measured: {start => first.with(elapsed_s: 30.0)}, deadline: 41.0, round_s: 2.0)
      # 10 s on the clock: the next step's look fits (10 + a mean look of 30 s
      # by 41 s); the duel's first round is expected to take 2 s, so it
      # begins (this surface has no `round`: a look stands in, 10 s each);
      # its second figure fits (30 + 10), the next round does not.
      assert_equal [{"workers" => 2, "threads" => 5}, start, {"workers" => 2, "threads" => 5}], surface.calls, "the start is not looked at again"
      assert_equal first.sustained_rps, outcome.candidates.first.sustained_rps
      assert_equal ["time", 40.0], [outcome.stopped, clock.now]
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
      machine = Plan::Machine.new(cores: 3) # 2 server cores when pinned
      puma = Tune::Space.for(Servers.fetch("puma"), machine: machine)
      assert_equal [["workers", 0, 4], ["threads", 1, 32]], puma.dimensions.map { |d| [d.name, d.min, d.max] }
      assert_equal({"workers" => 2, "threads" => 5}, puma.start)
      unicorn = Tune::Space.for(Servers.fetch("unicorn"), machine: machine)
      assert_equal [["workers", 1, 8]], unicorn.dimensions.map { |d| [d.name, d.min, d.max] }
      assert_equal({"workers" => 4}, unicorn.start) # 2 x 1.5 + 1
      assert Tune::Space.for(Servers.fetch("webrick"), machine: machine).empty?
    end

    def test_runtime_settings_are_tunables_of_every_mri_server_with_tune_runtime
      machine = Plan::Machine.new(cores: 2)
      names = Tune::Space.for(Servers.fetch("unicorn"), machine: machine, runtime: Plan::Runtime::NONE).dimensions.map(&:name)
      expected = ["workers", ("yjit" if defined?(RubyVM::YJIT)), ("jemalloc" if Plan::Runtime.jemalloc_path)].compact
      assert_equal expected, names
      fixed = Tune::Space.for(Servers.fetch("unicorn"), machine: machine, runtime: Plan::Runtime.parse("yjit,malloc=glibc"))
      assert_equal ["workers"], fixed.dimensions.map(&:name), "a runtime the user fixed is not searched"
      assert_equal ["yjit"], Tune::Space.runtime_tokens({"workers" => 2, "yjit" => 1, "jemalloc" => 0})
      assert_equal({"workers" => 2}, Tune::Space.adapter_settings({"workers" => 2, "yjit" => 1}))
    end
  end
end
