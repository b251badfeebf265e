# frozen_string_literal: true

module Arena
  module Report
    # A run directory (or its results file) read for reporting. A file of
    # another schema version is still shown, with a one-line note: a report of
    # what it holds beats no report. What cannot be read is one clear Error.
    class Source
      attr_reader :dir, :path, :document, :notes

      def self.open(target)
        path = File.directory?(target) ? File.join(target, "results.json") : target
        new(path: path, document: Results::Store.load(path))
      end

      def initialize(path:, document:)
        @path = path
        @dir = File.dirname(path)
        @notes = []
        @document = normalize(document)
      end

      private

      def normalize(document)
        schema = document["schema"]
        if schema != Results::SCHEMA
          @notes << "#{path} is schema #{schema}; this Arena writes #{Results::SCHEMA}: showing what it holds"
        end
        measurements = document.fetch("measurements", [])
        raise Error, "#{path}: \"measurements\" is not a list" unless measurements.is_a?(Array)
        servers = document.fetch("servers", [])
        raise Error, "#{path}: \"servers\" is not a list" unless servers.is_a?(Array)
        @notes << "the run was interrupted: these are the measurements made before it stopped" if document["interrupted"]
        document.merge(
          "measurements" => measurements.select { |m| m.is_a?(Hash) && m["server"] },
          "servers" => servers.select { |s| s.is_a?(Hash) },
          "environment" => document["environment"].is_a?(Hash) ? document["environment"] : {}
        )
      end
    end
  end
end
