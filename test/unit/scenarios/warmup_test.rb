# frozen_string_literal: true

require_relative "../../test_helper"
require "minitest/mock"
require "arena"

# The warm-up's slices on a made-up closed loop whose answers start only
# after a delay: fresh connections every slice, as the engine opens them.
class WarmupTest < Minitest::Test
  cover "Arena::Scenarios::Warmup*"

  Load = Struct.new(:completed, :good_rps)
  RUNAWAY = 100

  # A server that answers `rate` a second, the first answer `first_s` after a
  # slice opens its connections. The clock advances by each slice's length.
  class Engine
    attr_reader :durations, :now

    def initialize(rate:, first_s:)
      @rate = rate
      @first_s = first_s
      @durations = []
      @now = 0.0
    end

    # A warm-up that never stops fails here, not at mutant's timeout.
    def start(_target, settings)
      raise "a runaway warm-up" if @durations.size >= RUNAWAY
      d = settings.duration
      @durations << d
      @now += d
      completed = (@rate * [d - @first_s, 0].max).floor
      Struct.new(:wait).new(Load.new(completed, completed / d))
    end
  end

  def warm(engine, connections:, max_s: 10.0)
    settings = Arena::Load::Settings.build(connections: connections, duration: 0.3, warmup: 0.2)
    Arena::Support::Clock.stub(:now, -> { engine.now }) do
      Arena::Scenarios::Warmup.new(engine: engine, target: "t", settings: settings, max_s: max_s).call
    end
  end

  def test_slices_grow_until_each_holds_a_turn_of_the_closed_loop
    thin = Engine.new(rate: 20, first_s: 0.5) # one slot, 50 ms, 32 connections
    result = warm(thin, connections: 32, max_s: 20.0)
    assert_equal [0.25, 0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0], thin.durations, "twice as long while a slice answers fewer than its connections"
    assert result.steady, "judged on the slices of the last length only"
    assert_equal [0.0, 0.0, 10.0, 15.0, 17.5, 17.5, 17.5, 17.5], result.slices
    assert_equal 19.75, result.warmup_s
  end

  def test_a_fast_server_keeps_its_quarter_second_slices
    fast = Engine.new(rate: 5000, first_s: 0.001)
    result = warm(fast, connections: 32)
    assert_equal [0.25] * 4, fast.durations
    assert result.steady
    assert_equal 1.0, result.warmup_s
  end

  def test_no_warm_up_still_carries_the_turn
    engine = Engine.new(rate: 20, first_s: 0.5)
    settings = Arena::Load::Settings.build(connections: 32, duration: 0.3)
    skipped = Arena::Scenarios::Warmup.new(engine: engine, target: "t", settings: settings, max_s: 0, turn_s: 1.6).call
    assert_equal [0.0, [], nil, 1.6], skipped.to_a
    assert skipped.frozen?
    assert skipped.slices.frozen?
    assert_nil Arena::Scenarios::Warmup::Result.skipped.turn_s, "no turn known"
    assert_empty engine.durations
  end

  # --warmup-max is read as a Float: 0.0 asks for none, as does any bound
  # not above zero.
  def test_no_warm_up_for_any_bound_not_above_zero
    [0.0, -1.0].each do |max_s|
      engine = Engine.new(rate: 5000, first_s: 0.001)
      skipped = warm(engine, connections: 32, max_s: max_s)
      assert_empty engine.durations, "max_s #{max_s}"
      assert_nil skipped.steady
    end
  end

  # A slice shorter than a turn is never judged, even when its rate matches
  # the longer ones': the steady window is four slices of the last length.
  def test_slices_shorter_than_a_turn_are_never_judged
    result, engine = script([[0, 1000.0]] * 3 + [[100, 1000.0]] * 4, step: 0.25)
    assert_equal [0.25, 0.5, 1.0, 2.0, 2.0, 2.0, 2.0], engine.settings.map(&:duration)
    assert result.steady
  end

  def test_the_bound_holds_while_slices_grow
    hung = Engine.new(rate: 0, first_s: 0)
    result = warm(hung, connections: 32, max_s: 3.0)
    assert_equal [0.25, 0.5, 1.0, 2.0], hung.durations
    short = Engine.new(rate: 0, first_s: 0)
    warm(short, connections: 32, max_s: 0.4)
    assert_equal [0.25, 0.4], short.durations, "a doubled slice never longer than the bound"
    refute result.steady
  end

  # A server whose slices read the given figures in turn; the clock moves
  # by `step` a slice (not the slice's length: times that do not round).
  class Script
    attr_reader :settings, :targets, :now

    def initialize(loads, step:)
      @loads = loads.dup
      @step = step
      @settings = []
      @targets = []
      @now = 0.0
    end

    def start(target, settings)
      raise "a runaway warm-up" if @settings.size >= RUNAWAY
      @targets << target
      @settings << settings
      @now += @step
      Struct.new(:wait).new(@loads.shift || Load.new(0, 0.0))
    end
  end

  def script(loads, step:, connections: 1, max_s: 10.0, **kw)
    engine = Script.new(loads.map { |c, rps| Load.new(c, rps) }, step: step)
    settings = Arena::Load::Settings.build(connections: connections, duration: 0.3, warmup: 0.2)
    result = Arena::Support::Clock.stub(:now, -> { engine.now }) do
      Arena::Scenarios::Warmup.new(engine: engine, target: "t", settings: settings, max_s: max_s, **kw).call
    end
    [result, engine]
  end

  def test_slices_run_without_the_engines_own_warm_up_and_the_result_keeps_the_turn
    result, engine = script([[100, 1000.0]] * 4, step: 0.25, turn_s: 1.6)
    assert_equal [[0.25, 0.0, 1]] * 4, engine.settings.map { |s| [s.duration, s.warmup, s.connections] }
    assert_equal ["t"] * 4, engine.targets
    assert_equal 1.6, result.turn_s
    assert result.frozen?
    assert result.slices.frozen?
  end

  def test_slices_and_time_in_the_result_are_rounded
    result, = script([[100, 333.333]] * 4, step: 0.123456)
    assert_equal [333.3] * 4, result.slices
    assert_equal 0.49, result.warmup_s
  end

  def test_a_doubled_slice_is_rounded_to_the_millisecond
    _, engine = script([[0, 0.0], [0, 0.0], [9, 9.0]], step: 0.25, connections: 2, slice_s: 0.1234)
    assert_equal [0.1234, 0.247, 0.494], engine.settings.first(3).map(&:duration)
  end

  def test_the_window_and_band_judge_the_steady_state
    _, engine = script([[100, 1000.0]] * 9, step: 0.25, window: 2)
    assert_equal 2, engine.settings.size, "two steady slices are a window of 2"
    wide = [[100, 1000.0], [100, 1400.0]] * 6
    assert script(wide, step: 0.25, band_pct: 20.0).first.steady, "within ±20% of their median"
    refute script(wide, step: 0.25).first.steady, "not within ±10%"
  end

  def test_a_slice_that_answered_as_many_as_its_connections_held_a_turn
    result, engine = script([[2, 8.0]] * 4, step: 0.25, connections: 2)
    assert_equal [0.25] * 4, engine.settings.map(&:duration)
    assert_equal true, result.steady, "true, not the index of the steady window"
    assert_equal false, script([[1, 4.0]] * 9, step: 0.25, connections: 2, max_s: 1.0).first.steady
  end

  def test_the_bound_stops_at_its_exact_time
    _, engine = script([[0, 0.0]] * 9, step: 0.25, connections: 32, max_s: 0.75)
    assert_equal 3, engine.settings.size, "0.75 s spent of 0.75"
  end
end
