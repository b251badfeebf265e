# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # The Runner's two round strategies are objects of their own (issue 36),
  # chosen from the plan by Runner.rounds_for, subclasses of Run::Strategy,
  # which holds the steps they share (start, units_of, run_round,
  # precision_rounds; issue 47: no strategy calls back into the runner); each
  # answers call(slots, started:), load_for(unit, round), warmup(key, variant).
  class RoundStrategiesTest < Minitest::Test
    cover "Arena::Run::Runner*"

    # The shared steps, recorded: what a strategy asked for, in order. Included
    # in a subclass of the strategy under test, over Run::Strategy's own.
    module Steps
      attr_reader :calls

      def initialize(units_per_slot:, stop_after: nil, **collaborators)
        super(**collaborators)
        @units_per_slot = units_per_slot
        @stop_after = stop_after
        @calls = []
      end

      def start(slot, store: nil)
        @calls << [:start, slot.adapter]
        slot.session = Session.new(slot.adapter, @calls)
      end

      def stopped? = @calls.count { |c| c.first == :start } == @stop_after

      def units_of(slots, round: nil)
        slots.flat_map { |slot| (1..@units_per_slot).map { |i| Arena::Run::Strategy::Unit.new(slot: slot, workload: Workload.new(name: "w#{i}"), scenario: "s") } }
      end

      def run_round(units, round) = @calls << [:round, round, units.map(&:key)]

      def precision_rounds(_slots) = @calls << [:precision]

      def guarded(_slot) = yield
    end

    # A strategy of class `strategy` whose shared steps are Steps.
    def recorded(strategy, plan:, store:, units_per_slot: 1, stop_after: nil)
      Class.new(strategy) { include Steps }.new(units_per_slot: units_per_slot, stop_after: stop_after, plan: plan, store: store,
        reporter: nil, engine: nil, verifier: nil, scenarios: {"s" => Object}, new_starter: nil)
    end

    Workload = Struct.new(:name, keyword_init: true)
    Adapter = Struct.new(:label)

    # A started server: warms at 10 req/s (server "t": its slots' turn is
    # 1.2 s), and says when it stops.
    Session = Struct.new(:adapter, :calls) do
      def warm_up(_scenario, workload)
        return {} if workload.name == "w2"
        turn = (adapter.label == "t") ? 1.2 : nil
        {nil => Scenarios::Warmup::Result.new(warmup_s: 1.5, slices: [10.0, 10.0].freeze, steady: true, turn_s: turn).freeze}
      end

      def stop = calls << [:stop, adapter]
    end

    class Store
      attr_reader :rounds

      def initialize = @rounds = []

      def add_round(round:, order:) = @rounds << [round, order]

      def add_precision(**figures) = @precision = figures

      attr_reader :precision
    end

    Figure = Struct.new(:good_rps, :noisy?)

    # --precision holds the figures apart from the runner: it yields the
    # units still wide, a round at a time, and records which reached it.
    def test_precision_rounds_go_on_while_a_unit_is_wide
      store = Store.new
      precision = Arena::Run::Precision.new(plan: plan("--rounds", "3", "--precision", "5"), store: store)
      unit = Arena::Run::Strategy::Unit.new(slot: slots("a").first, workload: Workload.new(name: "w"), scenario: "s")
      [1000, 1300, 800].each { |rps| precision.add(unit.key, Figure.new(rps, false)) }
      precision.add(unit.key, Figure.new(100_000, true))
      yielded = []
      precision.rounds(units: -> { [unit] }, spent: -> { false }) do |wide, round|
        yielded << [wide.map(&:key), round]
        precision.add(unit.key, Figure.new(1000, false)) # narrower with every round
      end
      assert_equal 7, yielded.size, "the noisy figure left out of the interval"
      assert_equal [["a w s"], 4], yielded.first
      assert_equal({target_pct: 5.0, rounds: 3 + yielded.size, reached: ["a w s"], missed: {}}, store.precision)
      assert_equal 20, Arena::Run::Runner::MAX_ROUNDS
      none = Store.new
      Arena::Run::Precision.new(plan: plan, store: none).rounds(units: -> { [unit] }, spent: -> { false }) { flunk }
      assert_nil none.precision, "no --precision: nothing added, nothing recorded"
    end

    def plan(*flags) = TestHelp.plan("--servers", "puma", "-d", "0.5", "--round-requests", "20", "-c", "8", *flags)

    def slots(*labels) = labels.map { |l| Arena::Run::Runner::Slot.new(adapter: Adapter.new(l), index: 1) }

    def test_the_plan_chooses_the_strategy
      assert_equal Arena::Run::KeptUpRounds, Arena::Run::Runner.rounds_for(plan)
      assert_equal Arena::Run::KeptUpRounds, Arena::Run::Runner.rounds_for(plan("--between-rounds", "keep"))
      assert_equal Arena::Run::RestartedRounds, Arena::Run::Runner.rounds_for(plan("--between-rounds", "restart"))
      assert_equal Arena::Run::KeptUpRounds, Arena::Run::Runner.rounds_for(plan.with(between_rounds: nil)), "a plan built elsewhere keeps its servers up"
    end

    def test_kept_up_starts_each_server_once_and_stops_them_after_every_round
      store = Store.new
      kept = recorded(Arena::Run::KeptUpRounds, plan: plan("--rounds", "2", "--seed", "1"), store: store)
      kept.call(slots("a", "b"), started: 0.0)
      names = kept.calls.map(&:first)
      assert_equal %i[start start round round precision stop stop], names
      assert_equal [1, 2], store.rounds.map(&:first)
      assert_equal store.rounds.map(&:last), kept.calls.select { |c| c.first == :round }.map(&:last), "run in the recorded order"
    end

    def test_kept_up_load_has_no_warm_up_bound_but_round_one_of_an_unwarmed_unit_and_is_sized_to_its_rate
      p = plan("--seed", "1")
      kept = recorded(Arena::Run::KeptUpRounds, plan: p, store: Store.new, units_per_slot: 2)
      slot = slots("a")
      kept.call(slot, started: 0.0)
      warmed, unwarmed = kept.units_of(slot)
      assert_equal [2.0, 0.0, 1.6], kept.load_for(warmed, 1).to_h.values_at(:duration, :warmup_max, :warmup), "20 requests at 10 req/s; 8 connections at 10 req/s: 0.8 s in the loop, twice"
      assert_equal [2.0, 0.0, 1.6], kept.load_for(warmed, 2).to_h.values_at(:duration, :warmup_max, :warmup)
      assert_equal p.load, kept.load_for(unwarmed, 1)
      assert_equal [0.5, 0.0, 0.2], kept.load_for(unwarmed, 2).to_h.values_at(:duration, :warmup_max, :warmup)
      assert_equal 1.5, kept.warmup(warmed.key, nil).seconds
      assert_nil kept.warmup(warmed.key, nil), "handed out once, with the first measurement"
      assert_nil kept.warmup(unwarmed.key, nil)
      turned = recorded(Arena::Run::KeptUpRounds, plan: p, store: Store.new, units_per_slot: 2)
      t = slots("t")
      turned.call(t, started: 0.0)
      assert_equal 2.4, turned.load_for(turned.units_of(t).first, 2).warmup, "two of the slots' turns, longer than the rate's 0.8 s"
    end

    def test_restarted_starts_each_server_every_round_and_stops_it_after_its_units
      store = Store.new
      p = plan("--rounds", "2", "--seed", "1", "--between-rounds", "restart")
      restarted = recorded(Arena::Run::RestartedRounds, plan: p, store: store)
      restarted.call(slots("a"), started: 0.0)
      assert_equal [[:start, Adapter.new("a")], [:round, 1, ["a w1 s"]], [:stop, Adapter.new("a")],
        [:start, Adapter.new("a")], [:round, 2, ["a w1 s"]], [:stop, Adapter.new("a")], [:precision]], restarted.calls
      assert_equal [[1, ["a w1 s"]], [2, ["a w1 s"]]], store.rounds
      assert_equal p.load, restarted.load_for(nil, 1)
      assert_nil restarted.warmup("a w1 s", nil)
    end

    def test_restarted_stops_starting_servers_when_the_runner_says_so
      store = Store.new
      restarted = recorded(Arena::Run::RestartedRounds, plan: plan("--rounds", "3", "--between-rounds", "restart"), store: store, stop_after: 1)
      restarted.call(slots("a", "b"), started: 0.0)
      assert_equal %i[start stop], restarted.calls.map(&:first), "no round, no precision round after the root's 404"
      assert_equal [[1, []]], store.rounds
    end
  end
end
