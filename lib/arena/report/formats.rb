# frozen_string_literal: true

require_relative "../support/registry"

module Arena
  module Report
    # Report formats, one class each, found by name (`arena report --format`).
    module Formats
      extend Support::Registry

      # The order they are written and listed in, whatever order their files load in.
      ORDER = %w[md html].freeze

      def self.kind = "report format"

      def self.keys = registry.keys.sort_by { |key| ORDER.index(key) || ORDER.size }
    end
  end
end
