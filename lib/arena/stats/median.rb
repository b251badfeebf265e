# frozen_string_literal: true

module Arena
  module Stats
    module_function

    # The middle value (the mean of the middle two), nil for none: below the
    # interval and the steady state, which read it.
    def median(values)
      return nil if values.empty?
      sorted = values.sort
      mid = sorted.size / 2
      sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
    end
  end
end
