# frozen_string_literal: true

module Arena
  # The monotonic clock: deadlines and durations must not jump when the wall
  # clock is set.
  module Clock
    def self.now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end
  end
end
