# frozen_string_literal: true

module Arena
  module Report
    # Report formats, one class each, found by name (`arena report --format`).
    module Formats
      extend Support::Registry

      def self.kind = "report format"
    end
  end
end
