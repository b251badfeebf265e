# frozen_string_literal: true

require "psych"
require_relative "../core"
require_relative "../plan/machine"
require_relative "../support/plain_yaml"

module Arena
  module Planner
    # `arena.yml`: the benchmark a team commits beside its app. It holds what
    # `arena run` and `arena tune` take as flags; Planner::Builder merges it between
    # a preset and the flags (DEFAULTS, preset, arena.yml, flags). Every value is
    # checked here, and a bad one is one line naming the file, the line and the
    # key, before anything starts.
    #
    # Values come from Psych.safe_load (no tags, no aliases: a config file is
    # data); line numbers come from a second pass over Psych.parse's nodes.
    class ConfigFile
      NAME = "arena.yml"

      class Invalid < UsageError; end

      attr_reader :path, :options

      # ./arena.yml when there is one.
      def self.discover(dir = Dir.pwd)
        path = File.join(dir, NAME)
        File.file?(path) ? load(path) : nil
      end

      def self.load(path)
        raise UsageError, "#{path}: no such file" unless File.file?(path)
        new(path: path, text: File.read(path))
      end

      def initialize(path:, text:, machine: Plan::Machine.current)
        @path = path
        @dir = File.dirname(File.expand_path(path))
        @machine = machine
        data = parse(text)
        @options = Schema.new(self).options(data).freeze
      end

      # Planner::Builder's options: this file's, then whatever a flag set over them.
      def under(flags)
        options.merge(flags.reject { |_, v| v.nil? || v == [] })
      end

      # One line: file, line, key, what is wrong.
      def invalid!(key_path, why)
        line = @lines[key_path] || @lines[key_path[0...-1]] || @lines[key_path.take(1)]
        raise Invalid, "#{shown_path}:#{line || 1}: #{key_name(key_path)}: #{why}"
      end

      # A path in the file, relative to the file's own directory.
      def relative(value) = File.expand_path(value, @dir)

      attr_reader :machine

      private

      def parse(text)
        data = Psych.safe_load(text, permitted_classes: [], aliases: false, filename: shown_path)
        @lines = LineMap.new.call(Psych.parse(text, filename: shown_path))
        data = {} if data.nil?
        raise Invalid, "#{shown_path}:1: the file must be a mapping of settings (app:, servers:, load: ...)" unless data.is_a?(Hash)
        data
      rescue Psych::SyntaxError => e
        raise Invalid, "#{shown_path}:#{e.line}: YAML syntax: #{e.problem}"
      rescue Psych::DisallowedClass, Psych::BadAlias => e
        raise Invalid, "#{shown_path}:#{Support::PlainYaml.line_of_trouble(text) || 1}: #{Support::PlainYaml.why(e)} (a config file holds plain data)"
      end

      def shown_path
        full = File.expand_path(@path)
        full.start_with?("#{Dir.pwd}/") ? full.delete_prefix("#{Dir.pwd}/") : @path
      end

      def key_name(key_path)
        key_path.each_with_index.map { |k, i|
          if k.is_a?(Integer)
            "[#{k}]"
          else
            ((i.zero? ? "" : ".") + k.to_s)
          end
        }.join
      end

      # key path (["load", "connections"], ["servers", 1]) -> 1-based line.
      class LineMap
        def call(document)
          @lines = {}
          walk(document.root, []) if document&.root
          @lines
        end

        private

        def walk(node, key_path)
          @lines[key_path] ||= node.start_line + 1
          case node
          when Psych::Nodes::Mapping
            node.children.each_slice(2) do |key, value|
              next unless key.is_a?(Psych::Nodes::Scalar)
              @lines[key_path + [key.value]] = key.start_line + 1
              walk(value, key_path + [key.value])
            end
          when Psych::Nodes::Sequence
            node.children.each_with_index { |child, i| walk(child, key_path + [i]) }
          end
        end
      end
    end
  end
end

require_relative "config_schema"
