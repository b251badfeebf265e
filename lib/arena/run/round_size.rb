# frozen_string_literal: true

module Arena
  # How long a round's measurement of one unit lasts: long enough to hold
  # `requests` at the rate its warm-up reached, never shorter than -d, at
  # most MAX_S. A fixed 0.3 s round suits the built-in app (3,000 requests
  # and more on most servers) but not a real one: a Hanami app at about
  # 1,000 req/s got 300 requests a round, its rounds read 540-1,410 req/s,
  # and no pick was possible. Pure: figures in, seconds out.
  module RoundSize
    MAX_S = 5.0
    # The warm-up's last slices, where it had settled.
    LAST = 3

    extend self

    # duration: -d; rates: the warm-up's slices (req/s) of each variant.
    def duration(duration:, requests:, rates:)
      rate = settled(rates)
      return duration if rate.nil? || requests.to_i <= 0
      (requests.to_f / rate).clamp(duration, [MAX_S, duration].max)
    end

    # The engine's warm-up before each round's counted phase: at least one
    # turn of the closed loop, connections / rate (Little's law: the time a
    # request spends in the system), so that every connection has had its
    # answer before counting starts; never shorter than -w, at most MAX_S.
    # Each measurement opens its connections afresh: Thin with one slot on a
    # 50 ms request holds 32 connections for 1.6 s, writes its answers in
    # batches, and after -w 0.2 read 14-18 of its 20 req/s in 3 s rounds
    # (20.7, the limit, after 1.7 s).
    def warmup(warmup:, connections:, rates:)
      rate = settled(rates)
      return warmup if rate.nil? || connections.to_i <= 0
      (connections.to_f / rate).clamp(warmup, [MAX_S, warmup].max)
    end

    # The slowest variant's settled rate (nil: nothing served).
    def settled(rates) = rates.filter_map { |slices| Stats.median(slices.last(LAST)) }.select(&:positive?).min
  end
end
