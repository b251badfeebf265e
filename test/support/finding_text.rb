# frozen_string_literal: true

module Arena
  # Checks on the words of findings (issue 45): a finding never states a
  # rate from a time it could not measure ("285714.3 req/s at 0.0 ms a
  # request"). A clause (between ; and :) that gives a rate beside a time
  # that reads zero did.
  module FindingText
    RATE = %r{req/s}
    ZERO_TIME = /(?<![\d.])0(?:\.0+)? ?(?:ms|us|µs|s)\b/

    module_function

    # The findings (strings) with such a clause.
    def rates_from_nothing(lines)
      lines.select { |line| line.split(/[;:]/).any? { |clause| clause.match?(RATE) && clause.match?(ZERO_TIME) } }
    end
  end
end
