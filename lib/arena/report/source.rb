# frozen_string_literal: true

require_relative "../results/document"

module Arena
  module Report
    # A run directory (or its results file) opened for reporting: `view` is
    # the Results::Document (values).
    class Source
      attr_reader :dir, :path, :view

      def self.open(target)
        path = File.directory?(target) ? File.join(target, "results.json") : target
        new(path: path, document: Results::Document.read(path))
      end

      def initialize(path:, document:)
        @path = path
        @dir = File.dirname(path)
        @view = Results::Document.from_h(document, path: path)
      end

      def notes = @view.notes
    end
  end
end
