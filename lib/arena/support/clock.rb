# frozen_string_literal: true

module Arena
  module Support
    # The monotonic clock: deadlines and durations must not jump when the wall
    # clock is set.
    module Clock
      def self.now
        Process.clock_gettime(Process::CLOCK_MONOTONIC)
      end
    end
  end
end
