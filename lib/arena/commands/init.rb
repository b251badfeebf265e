# frozen_string_literal: true

require_relative "../bundle/app_source"
require_relative "../core"
require_relative "../load/settings"
require_relative "../plan/workloads"
require_relative "../planner/config_file"
require_relative "../scenarios/base"
require_relative "base"
require_relative "servers"

module Arena
  module Commands
    # `arena init`: writes a commented arena.yml for the app in the working
    # directory (its config.ru when there is one, else the built-in app), with
    # every load setting at its default so the file documents itself. It never
    # overwrites an arena.yml unless told to.
    class Init < Base
      USAGE = "usage: arena init [--force]"

      def call
        force = false
        OptionParser.new do |parser|
          parser.banner = USAGE
          parser.on("--force", "overwrite an existing arena.yml") { force = true }
        end.parse!(@argv)
        raise UsageError, "unexpected argument #{@argv.first.inspect} (#{USAGE})" unless @argv.empty?
        path = File.join(Dir.pwd, Planner::ConfigFile::NAME)
        raise UsageError, "#{Planner::ConfigFile::NAME} already exists (--force overwrites it)" if File.exist?(path) && !force
        File.write(path, Template.new(dir: Dir.pwd).render)
        @err.puts "wrote #{Planner::ConfigFile::NAME}: `arena run` here uses it; flags override it"
        0
      end

      # The file's text. Servers named are the ones installed for this app;
      # each takes the settings `arena servers` and the README list.
      class Template
        # installed: server names to list (default: ask every adapter, which
        # for some means starting a program, e.g. JRuby).
        def initialize(dir:, installed: nil)
          @dir = dir
          @app = File.file?(File.join(dir, "config.ru")) && File.file?(File.join(dir, "Gemfile"))
          @installed = installed
        end

        def render
          [header, app, servers, workloads, scenarios, load, rest].join("\n")
        end

        private

        def header
          <<~YAML
            # arena.yml: the benchmark `arena run` runs in this directory (and `arena tune` searches from).
            # Commit it with the app. Flags on the command line override what is here, and the merged
            # plan is recorded in each run's results.json. Paths are relative to this file.
          YAML
        end

        def app
          return "# app: config.ru        # a config.ru or its directory; without one Arena runs its built-in app\n" unless @app
          "# The Rack app: a config.ru or its directory.\napp: config.ru\n"
        end

        def servers
          names = installed
          lines = ["# Servers with their settings (`arena servers` lists what is installed), e.g.",
            "#   - puma: {workers: 2, threads: 5}",
            "#   - unicorn: {workers: 2}"]
          return "#{lines.join("\n")}\n# servers: []            # default: every installed server\n" if names.empty?
          "#{lines.join("\n")}\nservers:\n#{names.map { |n| "  - #{n}\n" }.join}"
        end

        def workloads
          return "# Built-in workloads: #{Plan::Workloads.builtin.keys.join(", ")}\nworkloads: [#{Plan::Workloads::DEFAULT.join(", ")}]\n" unless @app
          "# Paths to load, each PATH or PATH=STATUS:BODY_SUBSTRING; or a requests file (named requests, mixes):\n" \
            "workloads: [/]\n# requests: requests.yml\n"
        end

        def scenarios
          "# Scenarios: #{Scenarios.registry.keys.join(", ")}\nscenarios: [steady]\n"
        end

        # Every load setting from its one declaration, at its default.
        def load
          rows = Load::TABLE.map do |s|
            value = s.default.is_a?(Array) ? "[#{s.default.join(", ")}]" : s.default.to_s.sub(/\.0\z/, "")
            entry = s.default.nil? ? "# #{s.name}:" : "#{s.name}: #{value}"
            "  #{entry.ljust(24)} # #{s.help}"
          end
          "load:\n#{rows.join("\n")}\n"
        end

        def rest
          <<~YAML
            # Each measurement once per round; `arena compare --fail-on` measures the spread with 3 or more.
            rounds: 3

            # Sent with every request, verification included (e.g. behind a TLS-terminating proxy):
            # headers:
            #   X-Forwarded-Proto: https
            # The servers' environment:
            # env:
            #   SECRET_KEY_BASE: dummy-for-benchmarks
            # arena tune: the most memory (PSS, MiB) a config may use:
            # memory_budget_mb: 1024
          YAML
        end

        def installed
          return @installed if @installed
          source = @app ? Bundle::AppSource.user(File.join(@dir, "config.ru")) : Bundle::AppSource.builtin
          Servers.all.select { |k| k.install(source).found }.map(&:key).sort
        rescue Error
          []
        end
      end
    end
  end
end
