# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"
require "arena/probes/machine_speed"
require "arena/tune/confirmation"

module Arena
  # The confirmation rounds with sessions and a clock of known behaviour:
  # fresh sessions with queue time off, every config once a round in a
  # shuffled order, a speed reading before each load, at least 8 counted
  # rounds, a round read slow re-run, the deadline kept, and every session
  # stopped.
  class TuneConfirmationTest < Minitest::Test
    cover "Arena::Tune::Confirmation*"

    Reading = Probes::MachineSpeed::Reading
    Figures = Struct.new(:good_rps, :summary, :probes, :load, keyword_init: true) do
      def with(**) = self
    end

    # What the rounds record: measurements and speed readings.
    Store = Struct.new(:measurements, :speeds, :rounds) do
      def add_measurement(m) = measurements << m

      def add_confirmation_round(**round) = (self.rounds ||= []) << round

      def add_speed(round:, config:, reading:, variant:) = speeds << [round, config, reading]

      def add_speed_summary(median_ms:, flagged:) = speeds << [:summary, median_ms, flagged]
    end

    class Clock
      attr_accessor :now

      def initialize = @now = 0.0
    end

    # A session whose every load takes 3 s on the clock and serves `rps`;
    # its start fails from the `fail_from`th on.
    class Session
      attr_reader :stopped, :loads, :starts, :warmed

      def initialize(rps, clock, fail_from: nil)
        @rps = rps
        @clock = clock
        @fail_from = fail_from
        @loads = @starts = @warmed = 0
        @stopped = 0
      end

      def start(_workloads)
        @starts += 1
        raise Error, "boot failed" if @fail_from && @starts >= @fail_from
        @stopped = false
      end

      def warm_up(_scenario, _workload, load:)
        (@warm_loads ||= []) << load
        @warmed += 1
      end

      attr_reader :warm_loads

      def run(_scenario, _workload, load:)
        @clock.now += 3.0
        @loads += 1
        [Figures.new(good_rps: @rps, summary: Results::Summary.new(p99_us: 9000), probes: nil, load: nil)]
      end

      def stop = @stopped = true

      def up? = @stopped == false
    end

    # Readings, in order: a slow one where `slow` says (by reading count).
    class Speed
      attr_reader :calls

      def initialize(slow: [])
        @slow = slow
        @calls = []
      end

      def read(cpus:)
        @calls << cpus
        ms = @slow.include?(@calls.size) ? 20.0 : 10.0
        Reading.new(cpu_ms: ms / 2, memory_ms: ms / 2)
      end
    end

    def setup
      @clock = Clock.new
      @machine = Plan::Machine.new(cores: 2)
      @plan = Plan.new(load: Load::Options.new(**Load.defaults).freeze, machine: @machine)
      @store = Store.new([], [], nil)
    end

    def sides
      [["answer", "iodine", {"workers" => 1}], ["runner-up", "falcon", {"count" => 1}], ["baseline", "puma", {"threads" => 3, "workers" => 0}]]
        .map { |role, key, settings| Tune::Confirmation::Side.of(role: role, adapter: Servers.fetch(key).new(settings: settings, machine: @machine), installation: nil) }
    end

    def confirmation(sessions, speed: Speed.new, deadline: 10_000.0, judge: ->(_) { true })
      Tune::Confirmation.new(plan: @plan, store: @store, engine: nil, workload: nil, deadline: deadline, seed: 7, speed: speed,
        clock: @clock, judge: judge, session_for: ->(side, _) { sessions.fetch(side.role) })
    end

    def sessions(fail: nil, from: 1) = {"answer" => 1100.0, "runner-up" => 1000.0, "baseline" => 800.0}.to_h { |role, rps| [role, Session.new(rps, @clock, fail_from: (from if role == fail))] }

    # A config out of the rounds says what its requests met, not "served nothing":
    # a real app's own config timed out on SQLite's lock.
    def test_a_config_out_of_the_rounds_says_how_many_requests_failed_and_how
      load = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "duration_s" => 12.0,
        "requests" => {"sent" => 61, "completed" => 45}, "errors" => {"total" => 16, "timeout" => 16, "reset" => 0}})
      assert_equal "16 of 61 requests failed (16 timeout) in confirmation round 2, over the 1% limit",
        Tune::Confirmation.failed_words(load, 2)
      statuses = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "duration_s" => 12.0,
        "requests" => {"sent" => 80, "completed" => 80}, "errors" => {"total" => 2, "unexpected_status" => 2}})
      assert_equal "2 of 80 requests failed (2 unexpected status) in confirmation round 1, over the 1% limit",
        Tune::Confirmation.failed_words(statuses, 1)
      hung = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "duration_s" => 12.0,
        "requests" => {"sent" => 16, "completed" => 0}, "errors" => {"total" => 0}})
      assert_equal "16 of 16 requests failed (16 unanswered) in confirmation round 4, over the 1% limit",
        Tune::Confirmation.failed_words(hung, 4)
      assert_equal "served nothing in confirmation round 3", Tune::Confirmation.failed_words(nil, 3)
    end

    def test_eight_rounds_of_fresh_sessions_shuffled_each_load_after_a_speed_reading
      s = sessions
      speed = Speed.new
      c = confirmation(s, speed: speed)
      assert_equal "off", c.plan.load.queue_time, "no queue-time wrapper in the servers"
      result = c.call(sides)
      assert_equal ["precise", 8, []], [result.stopped, result.rounds.size, result.flagged]
      assert s.values.all?(&:stopped), "every session stopped"
      assert_equal [8, 8, 8], s.values.map(&:loads)
      assert_equal [[8, 8], [8, 8], [8, 8]], s.values.map { |x| [x.starts, x.warmed] }, "a fresh start and warm-up of every config each round"
      assert_equal 24, speed.calls.size, "a reading before each load"
      assert_equal 24, @store.measurements.size
      assert_equal [1, sides.first.key], @store.speeds.find { |r, config, _| r == 1 && config == sides.first.key }&.first(2)
      assert_equal [:summary, 10.0, []], @store.speeds.last, "the median and the flagged rounds, in results.json"
      assert_equal [@machine.server_cpus], speed.calls.uniq, "on the server's cores"
      assert_operator result.rounds.map(&:order).uniq.size, :>, 1, "the order is shuffled per round"
      assert result.rounds.all? { |r| r.order.sort == sides.map(&:key).sort }
      assert_equal (1..8).to_a, result.side("answer").rps.keys
      assert_equal 9.0, result.side("answer").p99_ms[1]
    end

    # The reading is taken while no server runs: after a warm-up, the server
    # still serving its last requests shared the core with the reading.
    def test_the_speed_is_read_before_the_start_while_no_server_is_up
      s = sessions
      up = []
      speed = Speed.new
      speed.define_singleton_method(:read) do |cpus:|
        up << s.values.count(&:up?)
        super(cpus: cpus)
      end
      confirmation(s, speed: speed).call(sides)
      assert_equal [0] * 24, up
    end

    # A start's warm-up has the plan's bound, as `arena run`'s (the
    # independent check's) has: 2 x -d within 2-10 s, or --warmup-max. A
    # bound of 4 s left Puma's threads colder than Falcon's fibers.
    def test_a_starts_warm_up_has_the_plans_bound_and_so_has_its_estimate
      @plan = Plan.new(load: Load::Options.new(**Load.defaults, duration: 9.2, warmup: 1.0).freeze, machine: @machine)
      s = sessions
      confirmation(s).call(sides)
      assert_equal [10.0], s.values.flat_map(&:warm_loads).map(&:warmup_limit).uniq
      assert_equal 9.2, s["answer"].warm_loads.first.duration, "the rest of the load as it was"
      @plan = Plan.new(load: Load::Options.new(**Load.defaults, duration: 9.2, warmup: 1.0, warmup_max: 1.5).freeze, machine: @machine)
      s = sessions
      confirmation(s).call(sides)
      assert_equal [1.5], s.values.flat_map(&:warm_loads).map(&:warmup_limit).uniq, "--warmup-max holds"
      assert_in_delta 10.0, Tune::Confirmation.warm_s(duration: 9.2, warmup: 1.0)
      assert_in_delta 8.0, Tune::Confirmation.warm_s(duration: 4.0, warmup: 1.0)
      assert_in_delta 0.4, Tune::Confirmation.warm_s(duration: 0.3, warmup: 0.2), 1e-9, "a 0.3 s load: 2 warm-ups, not the 2 s floor"
      assert_in_delta 3.0, Tune::Confirmation.warm_s(duration: 1.5, warmup: 1.5), 1e-9, "a fast app's: 2 warm-ups"
      assert_in_delta 4.9 + 10.0 + 2.0 + 9.2 + 1.0 + 1.5, Tune::Confirmation.side_s(boot_s: 4.9, duration: 9.2, warmup: 1.0)
      assert_in_delta 4.9 + 10.0 + 2.0 + 9.2 + 1.0 + 1.5 + 6.0, Tune::Confirmation.side_s(boot_s: 4.9, duration: 9.2, warmup: 1.0, request_ms: 40.0),
        1e-9, "a 40 ms app's turn: its verification, baseline and settle take 150 requests' time (real turns ran 1-10 s over)"
    end

    def test_each_round_is_recorded_with_its_order_seconds_and_design
      result = confirmation(sessions).call(sides)
      assert_equal 8, @store.rounds.size
      first = @store.rounds.first
      assert_equal [1, 9.0, "sequential", "confirmation"], first.values_at(:round, :seconds, :design, :variant), "3 loads of 3 s, one config at a time"
      assert_equal result.rounds.first.order, first[:order]
      assert_equal [9.0, "sequential"], [result.rounds.last.seconds, result.rounds.last.design]
    end

    # A resumed tune: the earlier rounds' figures are in the sides, the new
    # rounds go on from their last number, and all of them are judged together.
    def test_rounds_go_on_from_the_earlier_ones_and_are_judged_with_them
      earlier = sides
      earlier.each { |s| (1..8).each { |n| s.rps[n] = 1000.0 } }
      prior = (1..8).map { |n| Tune::Confirmation::Round.new(number: n, order: earlier.map(&:key), speeds: {}, seconds: 30.0, design: "sequential") }
      judged = []
      result = confirmation(sessions, judge: ->(r) { judged << r.rounds.size and r.rounds.size >= 11 }).call(earlier, prior: prior)
      assert_equal [9, 10, 11], @store.rounds.map { |r| r[:round] }
      assert_equal (1..11).to_a, result.side("answer").rps.keys
      assert_equal [1000.0, 1100.0], [result.side("answer").rps[8], result.side("answer").rps[9]]
      assert_equal [9, 10, 11], judged
      # The earlier rounds' time is the first estimate of a round's: 30 s does not fit in 20.
      @clock.now = 0.0
      assert_equal ["time", 8], confirmation(sessions, deadline: 20.0, judge: ->(_) { false }).call(earlier, prior: prior)
        .then { |r| [r.stopped, r.rounds.size] }
    end

    def test_a_round_read_slow_is_flagged_and_run_again
      result = confirmation(sessions, speed: Speed.new(slow: [4, 5, 6])).call(sides)
      assert_equal [2], result.flagged
      assert_equal 9, result.rounds.size
      assert_equal [1, 3, 4, 5, 6, 7, 8, 9], result.counted_numbers
    end

    def test_more_rounds_until_the_judge_says_narrow_then_the_deadline
      result = confirmation(sessions, judge: ->(r) { r.counted.size >= 11 }).call(sides)
      assert_equal ["precise", 11], [result.stopped, result.rounds.size]
      # A round takes 9 s here: after 3 rounds (27 s) a fourth would end past 30 s.
      @clock.now = 0.0
      result = confirmation(sessions, deadline: 30.0, judge: ->(_) { false }).call(sides)
      assert_equal ["time", 3], [result.stopped, result.rounds.size]
    end

    # The deadline may depend on the configs still in the rounds: the
    # tune's gives the cores rounds' time of a config that left back to them.
    def test_a_deadline_given_as_a_rule_is_read_with_the_configs_left_before_each_round
      seen = []
      deadline = lambda do |alive|
        seen << alive.map(&:role)
        (alive.any? { |s| s.role == "runner-up" }) ? 30.0 : 60.0
      end
      fixed = confirmation(sessions(fail: "runner-up", from: 2), deadline: 30.0, judge: ->(_) { false }).call(sides)
      @clock.now = 0.0
      moved = confirmation(sessions(fail: "runner-up", from: 2), deadline: deadline, judge: ->(_) { false }).call(sides)
      # 9 s for the first round of three, 6 s for each after the runner-up is out.
      assert_equal [["time", 4], ["time", 9]], [fixed, moved].map { |r| [r.stopped, r.rounds.size] }
      assert_equal 57.0, @clock.now
      assert_equal %w[answer runner-up baseline], seen.first
      assert_equal %w[answer baseline], seen.last
    end

    # A round is begun only when its configs' turns fit at the mean turn
    # and, from 3 turns on, twice its spread: turns of 30.6, 22.1, 25.1, 25.3 and 27.8 s
    # (mean 26.18, SD 3.19) plan 32.56 s a config, 97.7 s for 3.
    def test_a_round_is_begun_only_when_its_turns_fit_with_twice_their_spread
      assert_equal 0.0, Tune::Confirmation.turn_s([])
      assert_equal 30.0, Tune::Confirmation.turn_s([30.0])
      assert_in_delta 30.85, Tune::Confirmation.turn_s([33.7, 28.0]), 1e-9, "two turns show no spread yet"
      assert_in_delta 26.18 + 2 * 3.1917, Tune::Confirmation.turn_s([30.6, 22.1, 25.1, 25.3, 27.8]), 0.001
      earlier = sides
      earlier.each { |s| (1..5).each { |n| s.rps[n] = 1000.0 } }
      prior = [91.8, 66.3, 75.3, 75.9, 83.4].each_with_index.map do |seconds, i|
        Tune::Confirmation::Round.new(number: i + 1, order: earlier.map(&:key), speeds: {}, seconds: seconds, design: "sequential")
      end
      run = ->(deadline) { confirmation(sessions, deadline: deadline, judge: ->(_) { false }).call(earlier, prior: prior).rounds.size }
      @clock.now = 0.0
      assert_equal 5, run.call(97.6), "97.7 s do not fit in 97.6"
      @clock.now = 0.0
      assert_operator run.call(97.8), :>, 5
    end

    def test_a_config_that_does_not_start_is_out_and_the_rest_go_on
      s = sessions(fail: "runner-up")
      result = confirmation(s).call(sides)
      assert_equal "boot failed", result.side("runner-up").failed
      assert_equal [8, 0, 8], %w[answer runner-up baseline].map { |r| result.side(r).rps.size }
      assert_equal 1, s["runner-up"].starts, "not started again"
    end

    def test_a_config_that_does_not_start_again_keeps_its_rounds_and_is_out_of_the_rest
      s = sessions(fail: "baseline", from: 3)
      result = confirmation(s).call(sides)
      assert_equal "boot failed", result.side("baseline").failed
      assert_equal [8, 8, 2], %w[answer runner-up baseline].map { |r| result.side(r).rps.size }
      assert_equal [3, 2], [s["baseline"].starts, s["baseline"].loads]
      refute s.values.any?(&:up?), "a session whose start failed is stopped too"
    end
  end
end
