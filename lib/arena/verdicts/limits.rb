# frozen_string_literal: true

module Arena
  module Verdicts
    # The thresholds the rules judge by, which the figures below them (results/)
    # and the reports above them read too.
    module Limits
      # The fewest samples for which a percentile says more than "the k-th
      # largest of a handful": p99 needs 100, p99.9 needs 1,000.
      PERCENTILE_MIN_SAMPLES = {p50: 2, p75: 4, p90: 10, p99: 100, p999: 1000, p9999: 10_000}.freeze
      # A measurement with more errors than this is marked and never picked.
      ERROR_LIMIT_PCT = 1.0
      # The engine's core busier than this: the loader, not the server, may be the limit.
      LOADER_BUSY_PCT = 85.0
    end
  end
end
