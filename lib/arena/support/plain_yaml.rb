# frozen_string_literal: true

require "psych"
require_relative "../core"

module Arena
  module Support
    # YAML a person writes for Arena holds plain data: strings, numbers,
    # booleans, lists and mappings. An alias, a date or a symbol is refused
    # with the file and the line it is on, like any other bad value.
    module PlainYaml
      DATE = /\A\d{4}-\d{1,2}-\d{1,2}(?:[Tt ]|\z)/

      module_function

      # The data; UsageError "FILE:LINE: why" otherwise.
      def load(text, shown:)
        Psych.safe_load(text, permitted_classes: [], aliases: false, filename: shown)
      rescue Psych::SyntaxError => e
        raise UsageError, "#{shown}:#{e.line}: not valid YAML: #{e.problem}"
      rescue Psych::DisallowedClass, Psych::BadAlias => e
        raise UsageError, "#{shown}:#{line_of_trouble(text) || 1}: #{why(e)} (the file holds plain data: quote it)"
      end

      def why(error)
        error.is_a?(Psych::BadAlias) ? "an alias (*name)" : error.message.sub(/\ATried to load /, "").sub(/ in file .*\z/, "")
      end

      # The line of the first alias, or of the first plain scalar YAML would
      # read as a date, time or symbol.
      def line_of_trouble(text)
        stack = [Psych.parse(text)]
        until stack.empty?
          node = stack.shift
          next unless node
          return node.start_line + 1 if node.is_a?(Psych::Nodes::Alias)
          if node.is_a?(Psych::Nodes::Scalar) && node.plain && (node.value.match?(DATE) || node.value.start_with?(":"))
            return node.start_line + 1
          end
          stack.unshift(*node.children) if node.respond_to?(:children) && node.children
        end
        nil
      rescue Psych::SyntaxError
        nil
      end
    end
  end
end
