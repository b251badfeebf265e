# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# The Runner's failure paths, with fakes standing in for the collaborators it
# takes (starter, engine, verifier, scenarios). Real servers cover the happy
# path in the integration tests; here each way a server can fail is forced
# and the run must record it, go on to the next server, and write its results.
class RunnerTest < Minitest::Test
  cover "Arena::Results::Measurement*"

  Adapter = Struct.new(:label, :key, :settings, :workers, keyword_init: true) do
    def self.install(_app) = Arena::Bundle::Installation.new(found: true, version: "1.0", source: "bundle").freeze

    def upstreams(bind) = [bind]

    def envelope = Arena::Plan::Envelope::NONE

    def env(app:) = {}
  end

  # A started server: only what the Runner and Context read.
  FakeServer = Struct.new(:adapter, :bind, :dir, :argv, :boot_s, :boot_retry, :group, keyword_init: true) do
    def pids = []

    def local_pids = []

    def log_tail(_lines = 20) = []

    def crash_line = nil

    def stop = nil
  end

  # What a first start said when Launch::LocalServer made a second (Launch::LocalServer#boot_retry).
  RETRIED = "Daemon 'PassengerAgent watchdog' failed to start in time. (PhusionPassenger::DaemonController::StartTimeout)"

  # Starts servers from a script: :ok, :boot_fails, :boot_retried (up at its
  # second start) or :restart_fails.
  class FakeStarter
    attr_reader :server, :front, :events

    def initialize(script)
      @script = script
      @events = []
    end

    def start(adapter, dir)
      @events << [:start, adapter.label]
      raise Arena::Launch::LocalServer::Failed.new("#{adapter.label} exited during boot (exit status 1)", log_tail: ["boom"]) if @script[adapter.label] == :boot_fails
      @server = FakeServer.new(adapter: adapter, bind: Arena::System::Bind.tcp(port: 1), dir: dir, argv: ["fake"], boot_s: 0.1,
        boot_retry: (RETRIED if @script[adapter.label] == :boot_retried))
    end

    def restart(old)
      @events << [:restart, old.adapter.label]
      raise Arena::Launch::LocalServer::Failed.new("#{old.adapter.label} not ready after 1s", log_tail: ["slow"]) if @script[old.adapter.label] == :restart_fails
      @server = FakeServer.new(adapter: old.adapter, bind: old.bind, dir: old.dir, argv: ["fake"], boot_s: 0.1)
    end

    def stop
      @events << [:stop]
      @server = nil
    end

    def cleanup = @events << [:cleanup]
  end

  class Verifier
    def initialize(ok, status: 301)
      @ok = ok
      @status = status
    end

    def call(workloads)
      workloads.map do |w|
        Arena::Verify::Outcome.new(workload: w.name, ok: @ok, problems: @ok ? [] : ["status #{@status}, expected 200"],
          status: @ok ? 200 : @status)
      end
    end
  end

  # A scenario whose behaviour the test chooses: measure (a made-up engine
  # document), raise an engine failure, or be interrupted.
  def self.scenario(key, disruptive: false, &block)
    Class.new(Arena::Scenarios::Base) do
      define_singleton_method(:key) { key }
      define_method(:disruptive?) { disruptive }
      define_method(:planned) { |*| 1 }
      define_method(:call, &block)
    end
  end

  def self.measurement(ctx, key, noisy: false)
    load = Arena::Results::LoadFigures.from_engine({"schema" => "arena-load/1", "duration_s" => 1.0, "throughput_rps" => 100.0,
      "requests" => {"sent" => 100, "completed" => 100}, "errors" => {"total" => 0}, "latency_us" => {"count" => 100, "p50" => 900, "p99" => 2000}})
    Arena::Results::Measurement.new(server: ctx.adapter.label, workload: ctx.workload.name, scenario: key, load: load,
      summary: Arena::Results::Summary.of(load, noisy: noisy), extra: {}).freeze
  end

  # A throughput scenario whose rounds give these figures in turn (per server).
  FIGURES = Hash.new { |h, k| h[k] = [1000, 1300, 800] + [1000] * 30 }

  def self.figure_measurement(ctx)
    rps = FIGURES[ctx.adapter.label].shift
    load = Arena::Results::LoadFigures.from_engine({"schema" => "arena-load/1", "duration_s" => 1.0, "throughput_rps" => rps,
      "requests" => {"sent" => rps, "completed" => rps}, "errors" => {"total" => 0}, "latency_us" => {"count" => rps, "p50" => 900, "p99" => 2000}})
    Arena::Results::Measurement.new(server: ctx.adapter.label, workload: ctx.workload.name, scenario: "figures", load: load,
      summary: Arena::Results::Summary.of(load), extra: {}).freeze
  end

  # Noisy the first time each server's unit runs in a round, quiet after.
  NOISY_ONCE = Hash.new(0)

  # What the "warms" scenario did, in order: [:warm | :measure, server].
  STEPS = []

  def self.warming_scenario
    Class.new(scenario("warms") { |ctx| STEPS << [:measure, ctx.adapter.label, ctx.load.duration] && [RunnerTest.measurement(ctx, "warms")] }) do
      define_method(:warm_up) do |ctx|
        STEPS << [:warm, ctx.adapter.label]
        {nil => Arena::Scenarios::Warmup::Result.new(warmup_s: 1.5, slices: [10.0, 11.0].freeze, steady: true).freeze}
      end
    end
  end

  # The warm-up bound each call of "bounds" saw: [server, warmup_max].
  BOUNDS = []

  SCENARIOS = {
    "warms" => warming_scenario,
    "bounds" => scenario("bounds") { |ctx| BOUNDS << [ctx.adapter.label, ctx.load.warmup_max] && [RunnerTest.measurement(ctx, "bounds")] },
    "measures" => scenario("measures") { |ctx| [RunnerTest.measurement(ctx, "measures")] },
    "disrupts" => scenario("disrupts", disruptive: true) { |ctx| [RunnerTest.measurement(ctx, "disrupts")] },
    "engine-fails" => scenario("engine-fails") { |_| raise Arena::Load::Engine::Failed, "load engine: no output (exit 1)" },
    "interrupted" => scenario("interrupted") { |_| raise Interrupt },
    "figures" => Class.new(scenario("figures") { |ctx| [RunnerTest.figure_measurement(ctx)] }) { def self.throughput_basis? = true },
    "long" => Class.new(scenario("long") { |ctx| BOUNDS << [ctx.adapter.label, ctx.load.unit_bound_s] && [RunnerTest.measurement(ctx, "long")] }) { def self.long? = true },
    "noisy-once" => scenario("noisy-once") { |ctx| [RunnerTest.measurement(ctx, "noisy-once", noisy: (NOISY_ONCE[ctx.adapter.label] += 1) == 1)] },
    "long-noisy" => scenario("long-noisy") { |ctx| [RunnerTest.measurement(ctx, "long-noisy", noisy: (NOISY_ONCE[ctx.adapter.label] += 1) == 1)] }
      .tap { |klass| klass.define_singleton_method(:long?) { true } }
  }.freeze

  class Recorder
    attr_reader :events

    def initialize = @events = []

    %i[planned server_started server_failed measured timed].each do |event|
      define_method(event) { |*args| @events << [event, *args] }
    end

    def finished(document, interrupted:) = @events << [:finished, document, interrupted]
  end

  def setup
    @dir = Dir.mktmpdir("runner-test")
  end

  def teardown = FileUtils.rm_rf(@dir)

  # kept: the servers stay up between rounds (a fake starter per config).
  def run_with(labels, scenarios:, script: {}, verified: true, status: 301, app: Arena::Bundle::AppSource.builtin,
    workloads: [Arena::Plan::Workloads.builtin.fetch("server")], rounds: 1, seed: nil, kept: false, precision: nil, budget: nil)
    servers = labels.map { |l| Adapter.new(label: l, key: l, settings: {}, workers: 1) }
    load = Arena::Load::Options.new(**Arena::Load.defaults.merge(settle_timeout: 1.0))
    plan = Arena::Plan.new(app: app, servers: servers, workloads: workloads,
      scenarios: scenarios, load: load, out_dir: @dir, rounds: rounds, machine: Arena::Plan::Machine.current, headers: {}, env: {},
      round_seed: seed, precision: precision, budget: budget, between_rounds: kept ? "keep" : "restart")
    @store = Arena::Results::Store.new(path: File.join(@dir, "results.json"), environment: {}, plan: {})
    @reporter = Recorder.new
    @starter = FakeStarter.new(script)
    @kept_starters = []
    verifier = ->(_bind, _entry) { Verifier.new(verified, status: status) }
    # Restarted: one fake starter for every start, so its events read in order.
    new_starter = kept ? -> { FakeStarter.new(script).tap { |s| @kept_starters << s } } : -> { @starter }
    Arena::Run::Runner.new(plan: plan, reporter: @reporter, store: @store, engine: Object.new, new_starter: new_starter,
      verifier: verifier, scenarios: SCENARIOS).call
  end

  def servers = @store.view.servers.to_h { |s| [s.label, s] }

  def test_a_boot_failure_is_recorded_with_its_log_tail_and_the_next_server_runs
    runner = run_with(%w[a b], scenarios: ["measures"], script: {"a" => :boot_fails})
    assert_equal ["a exited during boot (exit status 1)"], runner.failures
    assert_equal ["boom"], servers["a"].log_tail
    assert servers["a"].failed?
    assert_equal ["b"], @store.view.measurements.map(&:server)
    assert_equal [:finished, false], @reporter.events.last.values_at(0, 2)
  end

  # A server up at its second start is measured, and its record and the
  # line that says it is ready say why the first start failed.
  def test_a_second_start_is_recorded_and_said
    run_with(%w[a b], scenarios: ["measures"], script: {"a" => :boot_retried})
    assert_equal RETRIED, servers["a"].boot_retry
    assert_nil servers["b"].boot_retry
    assert_equal RETRIED, Arena::Results::ServerRecord.from_h(JSON.parse(JSON.generate(servers["a"].to_record))).boot_retry
    refute servers["b"].to_record.key?("boot_retry")
    assert_equal %w[a b], @store.view.measurements.map(&:server)
    err = StringIO.new
    started = @reporter.events.select { |e| e.first == :server_started }.map(&:last)
    started.each { |record| Arena::Report::Terminal.new(out: StringIO.new, err: err).server_started(record) }
    assert_match(/\Aa 1.0 ready in 0.1s at its second start \(the first exited: #{Regexp.escape(RETRIED)}\); verified /o, err.string.lines[0])
    assert_equal 1, err.string.lines.size, "a start that went as planned is the progress line's, not a line of its own"
    verbose = StringIO.new
    started.each { |record| Arena::Report::Terminal.new(out: StringIO.new, err: verbose, verbose: true).server_started(record) }
    assert_match(/\Ab 1.0 ready in 0.1s; verified /, verbose.string.lines[1])
  end

  def test_a_verification_failure_is_one_line_and_nothing_is_loaded
    runner = run_with(%w[a], scenarios: ["measures"], verified: false)
    assert_equal ["a: failed verification (status 301, expected 200)"], runner.failures
    assert_empty @store.view.measurements
  end

  # Without --workload a user's app is loaded on /; a 404 there is the app's
  # answer, the same under every server: said once, with what to pass.
  def test_a_user_apps_root_answering_404_is_said_once_and_no_other_server_starts
    File.write(File.join(@dir, "config.ru"), "run ->(_) { [404, {}, []] }\n")
    File.write(File.join(@dir, "Gemfile"), "")
    runner = run_with(%w[a b c], scenarios: ["measures"], verified: false, status: 404,
      app: Arena::Bundle::AppSource.user(@dir), workloads: [Arena::Plan::Workloads.custom("/")])
    assert_equal ["the app answers / with 404 (under a); / is what Arena loads without --workload: name your app's paths, " \
      "e.g. --workload /items/7 (repeatable; PATH=STATUS for another status), or a requests file (--requests FILE); " \
      "the other 2 server(s) were not started"], runner.failures
    assert_equal [[:start, "a"]], @starter.events.select { |e| e.first == :start }
    # Another status, or the built-in app, fails server by server as before.
    runner = run_with(%w[a b], scenarios: ["measures"], verified: false, status: 500,
      app: Arena::Bundle::AppSource.user(@dir), workloads: [Arena::Plan::Workloads.custom("/")])
    assert_equal 2, runner.failures.size
  end

  def test_a_fresh_start_that_fails_after_a_disruptive_scenario_keeps_what_was_measured
    runner = run_with(%w[a b], scenarios: %w[disrupts measures], script: {"a" => :restart_fails})
    assert_equal ["a not ready after 1s"], runner.failures
    assert_equal %w[a:disrupts b:disrupts b:measures], @store.view.measurements.map { |m| "#{m.server}:#{m.scenario}" }
    assert servers["a"].failed?, "the later record (failed after start) wins"
    refute servers["b"].failed?
  end

  def test_an_engine_failure_mid_run_is_the_servers_failure_and_the_run_goes_on
    runner = run_with(%w[a b], scenarios: ["engine-fails"])
    assert_equal ["load engine: no output (exit 1)"] * 2, runner.failures
    assert @store.document["complete"], "reports and results are still written"
    assert_equal 2, @reporter.events.count { |e| e.first == :server_failed }
  end

  def test_rounds_run_in_a_seeded_order_shuffled_per_round
    run_with(%w[a b c d], scenarios: ["measures"], rounds: 3, seed: 42)
    orders = @store.document["rounds"].map { |r| r["order"].map { |k| k.split.first } }
    assert_equal 3, orders.size
    assert_equal [1, 2, 3], @store.document["rounds"].map { |r| r["round"] }
    orders.each { |o| assert_equal %w[a b c d], o.sort }
    assert_operator orders.uniq.size, :>, 1, "shuffled per round: #{orders}"
    assert_equal orders.flatten, @store.view.measurements.map(&:server), "measured in the recorded order"
    assert_equal [1] * 4 + [2] * 4 + [3] * 4, @store.view.measurements.map(&:repeat)
    relative = @store.document["relative"]
    assert_equal %w[a b c d], relative.map { |r| r["server"] }.sort, "every row against the reference, in results.json"
    assert_equal 3, relative.first["n"], "paired on the 3 rounds"
    first = orders
    run_with(%w[a b c d], scenarios: ["measures"], rounds: 3, seed: 42)
    assert_equal first, @store.document["rounds"].map { |r| r["order"].map { |k| k.split.first } }, "the same seed, the same order"
    run_with(%w[a b c d], scenarios: ["measures"], rounds: 3, seed: 43)
    refute_equal first, @store.document["rounds"].map { |r| r["order"].map { |k| k.split.first } }
  end

  def fit(long_rounds:, unit_s: {}, budget_s: nil)
    Arena::Plan::Budget::Fit.new(budget_s: budget_s, given: !budget_s.nil?, rounds: 3, long_rounds: long_rounds, short_rounds: 3,
      overrides: {}, unit_s: unit_s, units: [], start_s: 0.0, seconds: 0.0, cuts: []).freeze
  end

  # Issue 35: a long scenario fitted to fewer rounds runs in the first of
  # them only; the short ones run every round (servers kept up or not).
  def test_a_long_scenario_runs_only_its_fitted_rounds
    [true, false].each do |kept|
      run_with(%w[a b], scenarios: %w[measures long], rounds: 3, seed: 1, kept: kept, budget: fit(long_rounds: 1))
      rounds_of = ->(name) { @store.view.measurements.filter_map { |m| m.repeat if m.scenario == name } }
      assert_equal [1, 1, 2, 2, 3, 3], rounds_of.call("measures").sort
      assert_equal [1, 1], rounds_of.call("long"), "kept: #{kept}"
    end
  end

  # --max-time: a unit whose estimate would end past it is not started,
  # and said; the units that fit run.
  def test_a_unit_that_would_end_past_max_time_is_skipped_and_said
    run_with(%w[a], scenarios: %w[measures long], rounds: 1, kept: true,
      budget: fit(long_rounds: 1, budget_s: 60.0, unit_s: {"a server measures" => 1.0, "a server long" => 100.0}))
    assert_equal ["measures"], @store.view.measurements.map(&:scenario)
    cut = @store.document["cut"]
    assert_equal [["a server long", 1, 100.0, nil]], cut.map { |s| [s["key"], s["round"], s["need_s"], s["lowered"]] }
    assert_operator cut.first["left_s"], :>, 59
    said = @reporter.events.find { |e| e.first == :timed }
    assert_equal "a server long", said[1]
    assert_match(/\Anot started: about 100 s needed, \d+ s left of --max-time 60 s\z/, said[3])
  end

  # A long unit with a bound of its own runs with it lowered to the time left.
  def test_a_long_unit_that_would_end_past_max_time_runs_with_its_bound_lowered
    BOUNDS.clear
    budget = Arena::Plan::Budget::Fit.new(budget_s: 60.0, given: true, rounds: 1, long_rounds: 1, short_rounds: 1,
      overrides: {"long" => {max_time: 100.0}}, unit_s: {"a server long" => 100.0}, units: [], start_s: 0.0, seconds: 0.0, cuts: []).freeze
    run_with(%w[a], scenarios: %w[long], rounds: 1, kept: true, budget: budget)
    assert_equal 1, BOUNDS.size
    assert_operator BOUNDS.first.last, :<, 60
    assert_operator BOUNDS.first.last, :>=, 55
    cut = @store.document["cut"].first
    assert_equal({"max_time" => BOUNDS.first.last}, cut["lowered"])
    said = @reporter.events.find { |e| e.first == :timed }
    assert_match(/\A--max-time lowered to \d+ s: about 100 s needed, \d+ s left of --max-time 60 s\z/, said[3])
  end

  def test_a_noisy_measurement_is_run_again_once_at_the_end_of_its_round
    NOISY_ONCE.clear
    run_with(%w[a b], scenarios: ["noisy-once"], rounds: 2, seed: 1, kept: true)
    got = @store.view.measurements.map { |m| [m.repeat, m.server, m.noisy?, m.rerun] }
    assert_equal 6, got.size, got.inspect
    round1 = got.select { |r, *| r == 1 }
    assert_equal [[1, "a", true, nil], [1, "a", false, true]], round1.select { |_, s, *| s == "a" }
    assert_equal [nil, nil, true, true], round1.map { |m| m[3] }, "the re-runs come last in the round"
    assert_equal [false, false], got.select { |r, *| r == 2 }.map { |m| m[2] }
    starts = @kept_starters.map { |st| st.events.count { |e| e.first == :start } }
    assert_equal [1, 1], starts, "kept up: each server started once for both rounds"
  end

  # A long scenario (a sweep, a soak) is not run again for a noisy level:
  # its levels repeat the measurement within, and a second sweep doubled
  # issue 35's `-d 4 --max-time 120` run past its estimate (121 s of 120).
  def test_a_long_unit_is_not_run_again_when_noisy
    NOISY_ONCE.clear
    run_with(%w[a], scenarios: ["long-noisy"], rounds: 2, seed: 1, kept: true)
    got = @store.view.measurements.map { |m| [m.repeat, m.noisy?, m.rerun] }
    assert_equal [[1, true, nil], [2, false, nil]], got
  end

  # 1000, 1300, 800 is ±35% at 3 rounds; rounds of 1000 are added until the
  # interval's half-width is within 5%.
  def test_precision_adds_rounds_until_the_interval_is_narrow_enough
    FIGURES.clear
    run_with(%w[a], scenarios: ["figures"], rounds: 3, seed: 1, kept: true, precision: 5.0)
    precision = @store.document["precision"]
    assert_equal ["a server figures"], precision["reached"]
    assert_empty precision["missed"]
    assert_operator precision["rounds"], :>, 3
    iv = Arena::Stats.interval(@store.view.measurements.map(&:good_rps))
    assert_operator iv.half_width_pct, :<=, 5.0
    assert_operator Arena::Stats.interval(@store.view.measurements.map(&:good_rps)[0..-2]).half_width_pct, :>, 5.0, "not one round more than needed"
  end

  # Kept up: every unit warms before round 1, none next to its own
  # measurement; the warm-up is recorded with the unit's first measurement.
  def test_servers_kept_up_all_warm_before_round_one
    STEPS.clear
    run_with(%w[a b c], scenarios: ["warms"], rounds: 2, seed: 3, kept: true)
    assert_equal %i[warm] * 3 + %i[measure] * 6, STEPS.map(&:first), STEPS.inspect
    assert_equal %w[a b c], STEPS.first(3).map(&:last).sort
    by_round = @store.view.measurements.group_by(&:repeat)
    assert_equal [1.5] * 3, by_round[1].map(&:warmup_s), "round 1 carries the warm-up"
    assert_equal [nil] * 3, by_round[2].map(&:warmup_s)
    assert_equal [[10.0, 11.0]] * 3, by_round[1].map { |m| m.warmup.slices }
    # Warmed at about 10 req/s: 2,000 requests would take 190 s, so every round lasts the 5 s cap, not -d's 0.3 s.
    assert_equal [5.0] * 6, STEPS.select { |s| s.first == :measure }.map(&:last)
  end

  # A scenario that warms inside its own measurement (sustained's closed
  # maximum) keeps the plan's warm-up bound in round 1; later rounds and
  # pre-warmed units measure with none.
  def test_a_scenario_without_a_warm_up_of_its_own_keeps_the_bound_in_round_one
    BOUNDS.clear
    STEPS.clear
    run_with(%w[a], scenarios: %w[bounds warms], rounds: 2, seed: 3, kept: true)
    assert_equal [["a", nil], ["a", 0.0]], BOUNDS
    assert_equal [[:warm, "a"], [:measure, "a", 5.0], [:measure, "a", 5.0]], STEPS
  end

  # Restarted between rounds (one injected starter, as a remote host has):
  # a precision round starts afresh only the server whose interval is still
  # wide and runs only its units. "b" gives 1000 every round (narrow at 3).
  def test_precision_with_restarts_restarts_only_the_wide_server
    FIGURES.clear
    FIGURES["b"] = [1000] * 30
    run_with(%w[a b], scenarios: ["figures"], rounds: 3, seed: 1, precision: 5.0)
    precision = @store.document["precision"]
    assert_equal ["a server figures", "b server figures"], precision["reached"].sort
    assert_operator precision["rounds"], :>, 3
    per_server = @store.view.measurements.group_by(&:server).transform_values(&:size)
    assert_equal 3, per_server["b"], "b was narrow after 3 rounds: not measured again"
    assert_operator per_server["a"], :>, 3
    starts = @starter.events.select { |e| e.first == :start }.map(&:last)
    assert_equal 3, starts.count("b"), "b is not restarted for a precision round"
    assert_equal per_server["a"], starts.count("a"), "a fresh start of a per precision round"
    extra = @store.document["rounds"].drop(3)
    refute_empty extra
    extra.each { |r| assert_equal ["a server figures"], r["order"] }
    assert_operator Arena::Stats.interval(@store.view.measurements.select { |m| m.server == "a" }.map(&:good_rps)).half_width_pct, :<=, 5.0
  end

  def test_an_interrupt_keeps_results_cleans_up_and_is_raised
    assert_raises(Interrupt) { run_with(%w[a b], scenarios: ["interrupted"]) }
    assert @store.document["interrupted"]
    assert_equal [:finished, true], @reporter.events.last.values_at(0, 2)
    assert_equal [:cleanup], @starter.events.last
    refute @starter.events.include?([:start, "b"]), "nothing starts after Ctrl-C"
  end
end
