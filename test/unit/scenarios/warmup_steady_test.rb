# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The warm-up's stopping rule with an engine whose slices the test chooses,
# on the real clock.
class WarmupSteadyTest < Minitest::Test
  cover "Arena::Scenarios::Warmup*"

  class Engine
    Run = Struct.new(:rps) do
      def wait = Struct.new(:good_rps, :completed).new(rps, 1_000_000)
    end

    # A warm-up that never stops fails here, not at mutant's timeout: the
    # climbing series runs about 110 slices in its 0.05 s on this machine
    # (each judgement reads every window so far), and 500 take about 1 s.
    RUNAWAY = 500

    def initialize(series)
      @series = series.dup
      @slices = 0
    end

    def start(_target, _settings)
      raise "a runaway warm-up" if (@slices += 1) > RUNAWAY
      Run.new(@series.shift || 1000.0)
    end
  end

  def warm(series, max_s:) = Arena::Scenarios::Warmup.new(engine: Engine.new(series), target: nil, settings: Arena::Load::Settings.build(duration: 5.0), max_s: max_s, slice_s: 0.0).call

  def test_warm_up_stops_at_the_first_steady_window_and_is_bounded
    cold = [100, 300, 500, 700, 850, 950, 1000, 1000, 1005, 995, 1000, 1000]
    w = warm(cold, max_s: 60)
    assert w.steady
    assert_includes 8..10, w.slices.size, "steady once the climb flattens: #{w.slices}"
    climbing = warm(Array.new(10_000) { |i| 100.0 + i }, max_s: 0.05)
    refute climbing.steady
    assert_operator climbing.warmup_s, :<, 1.0
    assert_nil warm(cold, max_s: 0).steady, "--warmup-max 0: no warm-up"
  end
end
