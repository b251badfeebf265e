# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

module Arena
  # The sustained scenario's bisection (lib/arena/scenarios/sustained.rb)
  # on levels made up for the purpose: a level the time cut short is not a miss.
  class SustainedBisectionTest < Minitest::Test
    Latency = Struct.new(:p99, :n, keyword_init: true)
    Load = Struct.new(:dropped, :duration_s, :error_pct, :latency, :good_histogram, keyword_init: true)
    Level = Struct.new(:good_rps, :load, :extra, keyword_init: true) do
      def with(extra:) = self.class.new(good_rps: good_rps, load: load, extra: extra)
    end
    Ctx = Struct.new(:slo_ms, :load, :settings, keyword_init: true)

    # Levels answer with `samples` responses at p99 `p99_ms`, each on time.
    class Probe < Scenarios::Sustained
      attr_reader :fractions

      def initialize(levels)
        super(steps: 4)
        @levels = levels
        @fractions = []
      end

      def measure(*, **) = Level.new(good_rps: 20.0, load: nil, extra: {})

      def open_level(_ctx, max, fraction, **)
        @fractions << fraction
        samples, p99_ms = @levels.fetch(@fractions.size - 1)
        rate = max * fraction
        Level.new(good_rps: rate, extra: {"fraction" => fraction, "target_rps" => rate},
          load: Load.new(dropped: 0, duration_s: samples / rate, error_pct: 0.0, latency: Latency.new(p99: (p99_ms * 1000).round, n: samples)))
      end

      def summary(_ctx, _closed, points) = points
    end

    def bisect(levels)
      probe = Probe.new(levels)
      points = probe.call(Ctx.new(slo_ms: 150.0, load: Struct.new(:unit_bound_s).new(60.0))).drop(1).last
      [probe.fractions, points.map { |p| [p.extra["sustained"], p.extra["thin"]] }]
    end

    def test_a_level_cut_short_within_the_slo_is_held_and_ends_the_bisection
      fractions, verdicts = bisect([[40, 120.0]])
      assert_equal [0.9], fractions
      assert_equal [[true, true]], verdicts
    end

    def test_a_full_level_over_the_slo_is_a_miss_and_the_bisection_halves
      fractions, verdicts = bisect([[130, 400.0], [130, 90.0], [60, 80.0]])
      assert_equal [0.9, 0.45, 0.675], fractions
      assert_equal [[false, nil], [true, nil], [true, true]], verdicts
    end

    def test_a_level_cut_short_over_the_slo_is_still_a_miss
      fractions, verdicts = bisect([[40, 400.0], [130, 90.0], [130, 90.0], [130, 90.0]])
      assert_equal [0.9, 0.45], fractions.first(2)
      assert_equal [false, nil], verdicts.first
    end
  end
end
