# frozen_string_literal: true

require_relative "../stats/stats"
require_relative "../support/clock"

module Arena
  module Scenarios
    # Warm-up to a steady state instead of a fixed number of seconds: the load
    # runs in short slices (SLICE_S each, the measurement's own settings) until
    # Stats.steady_state finds the last slices steady (no significant trend,
    # within ±BAND_PCT of their median), or --warmup-max is spent. A C core
    # (Agoo, Iodine) is steady after the first window, a cold Rails process
    # keeps climbing for seconds and gets them. What it took is recorded with
    # the measurement as `warmup_s`, and whether it got steady.
    #
    # Slices are separate engine runs, not one run read as it goes: the engine
    # prints its figures at the end, and a new run every 0.25 s costs a
    # process start (a few ms) and fresh connections, which a warm-up can
    # afford and a measurement does not see.
    class Warmup
      # turn_s: one turn of the closed loop as known before the load (RoundSize.turn).
      Result = Struct.new(:warmup_s, :slices, :steady, :turn_s, keyword_init: true)
      # Out of the Struct.new block: mutant skips methods defined in a closure.
      class Result
        def self.skipped(turn_s: nil) = new(warmup_s: 0.0, slices: [].freeze, steady: nil, turn_s: turn_s).freeze
      end

      SLICE_S = 0.25
      WINDOW = 4
      BAND_PCT = 10.0

      def initialize(engine:, target:, settings:, max_s:, slice_s: SLICE_S, window: WINDOW, band_pct: BAND_PCT, turn_s: nil)
        @turn_s = turn_s
        @engine = engine
        @target = target
        @settings = settings.with(duration: slice_s, warmup: 0.0)
        @max_s = max_s
        @window = window
        @band_pct = band_pct
      end

      # A slice that answered fewer requests than it has connections was
      # shorter than one turn of the closed loop (each slice opens its
      # connections afresh): Thin with one slot on a 50 ms request answers 32
      # connections only after 1.6 s, so its 0.25 s slices read 0 until the
      # bound. The next slice is twice as long, and only slices of the last
      # length are judged for a steady state.
      def call
        # No warm-up asked: the turn still sizes the rounds' -w.
        return Result.skipped(turn_s: @turn_s) if @max_s <= 0
        started = Support::Clock.now
        settings = @settings
        slices = []
        judged = []
        steady = nil
        loop do
          load = @engine.start(@target, settings).wait
          slices << load.good_rps
          judged << load.good_rps
          if load.completed.to_i < settings.connections.to_i
            # Never longer than the whole bound: the last slice may pass it by its own length.
            settings = settings.with(duration: [settings.duration * 2, @max_s].min.round(3))
            judged = []
          else
            steady = Stats.steady_state(judged, band_pct: @band_pct, window: @window)
          end
          break if steady || Support::Clock.now - started >= @max_s
        end
        Result.new(warmup_s: (Support::Clock.now - started).round(2), slices: slices.map { |r| r.round(1) }.freeze, steady: !steady.nil?,
          turn_s: @turn_s).freeze
      end
    end
  end
end
