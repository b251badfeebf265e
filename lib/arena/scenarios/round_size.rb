# frozen_string_literal: true

require_relative "../stats/median"

module Arena
  module Scenarios
    # How long a round's measurement of one unit lasts: long enough to hold
    # `requests` at the rate its warm-up reached, never shorter than -d, at
    # most MAX_S. A fixed 0.3 s round suits the built-in app (3,000 requests
    # and more on most servers) but not a real one: a Hanami app at about
    # 1,000 req/s got 300 requests a round, its rounds read 540-1,410 req/s,
    # and no pick was possible. Pure: figures in, seconds out.
    module RoundSize
      MAX_S = 5.0
      # Turns of the closed loop in a round's warm-up: one fills it, one is timed.
      TURNS = 2
      # The warm-up's last slices, where it had settled.
      LAST = 3

      extend self

      # duration: -d; rates: the warm-up's slices (req/s) of each variant.
      def duration(duration:, requests:, rates:)
        rate = settled(rates)
        return duration if rate.nil?
        # No requests asked (0 or nil) read as none: the clamp keeps -d.
        (requests.to_f / rate).clamp(duration, [MAX_S, duration].max)
      end

      # The engine's warm-up before each round's counted phase: TURNS turns of
      # the closed loop, a turn being connections / rate (Little's law: the
      # time a request spends in the system), so that every connection has had
      # its answer before counting starts, and the warm-up has a full turn for
      # --queue-time on to time (it stamps each connection's requests after its
      # first: Probes::QueueTime); never shorter than -w, at most MAX_S.
      # Each measurement opens its connections afresh: Thin with one slot on a
      # 50 ms request holds 32 connections for 1.6 s, writes its answers in
      # batches, and after -w 0.2 read 14-18 of its 20 req/s in 3 s rounds
      # (20.7, the limit, after 1.7 s).
      # turn_s: the turn known before any load (RoundSize.turn), for a warm-up
      # whose slices read no rate.
      def warmup(warmup:, connections:, rates:, turn_s: nil)
        rate = settled(rates)
        # No connections (an open model: nil or 0) make no turn.
        measured = rate ? connections.to_f / rate : 0.0
        (TURNS * [measured, turn_s.to_f].max).clamp(warmup, [MAX_S, warmup].max)
      end

      # One turn of the closed loop before any load: each slot serves its
      # share of the connections one after another, at the unloaded service
      # time (the baseline's p50). 0 where the slots are not declared (fibers)
      # or nothing is known.
      def turn(connections:, service_us:, slots:)
        # No baseline (nil) reads as a service time of 0: no turn.
        return 0.0 unless connections.to_i.positive? && slots.to_i.positive?
        connections * service_us.to_f / 1e6 / [slots, connections].min
      end

      # The slowest variant's settled rate (nil: nothing served).
      def settled(rates) = rates.filter_map { |slices| Stats.median(slices.last(LAST)) }.select(&:positive?).min
    end
  end
end
