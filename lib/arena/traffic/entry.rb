# frozen_string_literal: true

module Arena
  module Traffic
    # One request read from a log: method, the path as sent (query included),
    # the status the app answered, and the line it came from.
    Entry = Struct.new(:method, :target, :status, :line, keyword_init: true)

    # A line that could not be read as a request, kept for the summary.
    Skip = Struct.new(:line, :why, keyword_init: true)
  end
end
