# frozen_string_literal: true

require "json"
require "rbconfig"
require "set"

module Arena
  module Bundle
    # The gems the app's Gemfile declares, each with its groups and version
    # requirement, and the optional groups: what decides, with the app's
    # Bundler settings, which of its locked gems its bundle loads. A gem the
    # app locks only in a group it leaves out (Puma in :test) is not there
    # when a server boots.
    #
    #   dependencies  [{"name", "groups", "requirement" => ["~> 6.0"]}]
    class AppGems
      # Evaluated by Bundler in a process of its own, in the app's directory
      # and environment (a Gemfile is Ruby, and may read both).
      SCRIPT = <<~RUBY
        require "bundler"; require "json"
        d = Bundler::Dsl.evaluate(Bundler.default_gemfile, nil, {})
        deps = d.dependencies.map { |x| {"name" => x.name, "groups" => x.groups.map(&:to_s), "requirement" => x.requirement.as_list} }
        print JSON.generate("dependencies" => deps, "optional_groups" => Array(d.instance_variable_get(:@optional_groups)).map(&:to_s))
      RUBY

      CLEAN = %w[RUBYOPT RUBYLIB BUNDLE_BIN_PATH BUNDLER_SETUP BUNDLER_VERSION].to_h { |k| [k, nil] }.freeze

      # nil when Bundler cannot read the Gemfile (the app will say why when it boots).
      def self.read(gemfile, env: {})
        out = IO.popen(CLEAN.merge(env).merge("BUNDLE_GEMFILE" => gemfile), [RbConfig.ruby, "-e", SCRIPT],
          chdir: File.dirname(gemfile), err: File::NULL, &:read)
        return nil unless $?.success?
        data = JSON.parse(out)
        new(dependencies: data.fetch("dependencies"), optional_groups: data.fetch("optional_groups")).freeze
      rescue JSON::ParserError, KeyError, SystemCallError
        nil
      end

      attr_reader :dependencies, :optional_groups

      def initialize(dependencies:, optional_groups:)
        @dependencies = dependencies
        @optional_groups = optional_groups
      end

      def to_h = {dependencies: dependencies, optional_groups: optional_groups}

      def declared(name) = dependencies.find { |d| d["name"] == name }

      # The names of the locked gems (specs: the app's lock's) that the app's
      # bundle loads under these settings: the gems of the groups it loads,
      # and everything they depend on.
      def loaded(specs, settings)
        groups = settings.requested(dependencies.flat_map { |d| d["groups"] }.uniq, optional: optional_groups)
        by_name = specs.group_by(&:name)
        todo = dependencies.select { |d| d["groups"].intersect?(groups) }.map { |d| d["name"] }
        seen = Set.new
        until todo.empty?
          name = todo.shift
          next unless seen.add?(name)
          by_name.fetch(name, []).each { |spec| todo.concat(spec.dependencies.map(&:name)) }
        end
        seen.select { |name| by_name.key?(name) }.to_set
      end
    end
  end
end
