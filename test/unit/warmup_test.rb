# frozen_string_literal: true

require_relative "../test_helper"
require "minitest/mock"
require "arena"

# The warm-up's slices on a made-up closed loop whose answers start only
# after a delay: fresh connections every slice, as the engine opens them.
class WarmupTest < Minitest::Test
  cover "Arena::Warmup*"

  Load = Struct.new(:completed, :good_rps)

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

    def start(_target, settings)
      d = settings.duration
      @durations << d
      @now += d
      completed = (@rate * [d - @first_s, 0].max).floor
      Struct.new(:wait).new(Load.new(completed, completed / d))
    end
  end

  def warm(engine, connections:, max_s: 10.0)
    settings = Arena::Load::Settings.build(connections: connections, duration: 0.3, warmup: 0.2)
    Arena::Clock.stub(:now, -> { engine.now }) do
      Arena::Warmup.new(engine: engine, target: "t", settings: settings, max_s: max_s).call
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
    skipped = Arena::Warmup.new(engine: engine, target: "t", settings: settings, max_s: 0, turn_s: 1.6).call
    assert_equal [0.0, [], nil, 1.6], skipped.to_a
    assert_empty engine.durations
  end

  def test_the_bound_holds_while_slices_grow
    hung = Engine.new(rate: 0, first_s: 0)
    result = warm(hung, connections: 32, max_s: 3.0)
    assert_equal [0.25, 0.5, 1.0, 2.0], hung.durations
    refute result.steady
  end
end
