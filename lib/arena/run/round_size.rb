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
      rate = rates.filter_map { |slices| Stats.median(slices.last(LAST)) }.select(&:positive?).min
      return duration if rate.nil? || requests.to_i <= 0
      (requests / rate).clamp(duration, [MAX_S, duration].max)
    end
  end
end
