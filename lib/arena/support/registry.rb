# frozen_string_literal: true

require_relative "../core"

module Arena
  module Support
    # Plug-ins found by name, one file each in a folder (servers, scenarios,
    # presets): a namespace extends this, each class registers itself with
    # `key` and `description`, and adding one means adding a file.
    module Registry
      def registry = (@registry ||= {})

      def register(klass) = registry[klass.key] = klass

      def all = registry.values

      def fetch(name)
        registry.fetch(name) { raise UsageError, "unknown #{kind} #{name.inspect} (known: #{registry.keys.sort.join(", ")})" }
      end

      # Requires every file in `dir` but the base class.
      def load_all(dir)
        Dir[File.join(dir, "*.rb")].sort.each { |f| require f unless f.end_with?("/base.rb") }
      end

      # Class-level `declare "key", "description"`, shared by each plug-in base.
      module Member
        attr_reader :key, :description

        def declare(key, description, into:)
          @key = key
          @description = description
          into.register(self)
        end
      end
    end
  end
end
