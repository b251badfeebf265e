# frozen_string_literal: true

require "json"
require "yaml"
require_relative "../core"
require_relative "config_reader"
require_relative "plan"

module Arena
  class Plan
    # What a Rails app's own files say about how it runs in production, read
    # and never run (ERB tags and puma.rb by ConfigReader's rules):
    # - config/database.yml's pool for production: `max_connections` (Rails
    #   8.1's name) or `pool` (before), of its primary database;
    # - Solid Queue inside Puma: puma.rb's `plugin :solid_queue`, gated by
    #   an env var (`if ENV["SOLID_QUEUE_IN_PUMA"]`) that config/deploy.yml's
    #   `env: clear:` sets for production (Kamal);
    # - Thruster in front: the Dockerfile's CMD starts `thrust`;
    # - puma.rb's `max_io_threads` (Puma 8.0's extra IO threads).
    class RailsFiles
      PUMA_FILES = %w[config/puma.rb config/puma/production.rb].freeze
      ERB_OUTPUT = /<%=(.*?)-?%>/m
      ERB_OTHER = /<%.*?%>/m
      PLUGIN = /^\s*plugin[\s(]+[:"'](?<name>solid_queue)["']?\)?(?:\s+if\s+ENV(?:\[|\.fetch\()\s*["'](?<gate>\w+)["'])?/
      # The Puma releases whose max_io_threads can leave requests stuck (puma/puma#3958): 8.0 introduced it.
      STUCK_IO_THREADS = Gem::Requirement.new(">= 8.0.0.a", "<= 8.0.2")

      # Active Record's pool when database.yml names none.
      DEFAULT_POOL = 5
      # The Rails that reads max_connections (and `pool` only without it); older ones read `pool` alone.
      MAX_CONNECTIONS = Gem::Version.new("8.1.0.a")

      # The production pool: the key that set it (nil: none did, Active
      # Record's default) and its size (nil: not an integer read here).
      Pool = Struct.new(:key, :size, keyword_init: true) do
        def words = key ? "database.yml's #{key}" : "Active Record's default pool"

        # A line when a process's threads outnumber its connections, else nil.
        def exceeded(threads)
          return nil unless threads && size && threads > size
          "#{threads} threads per process share #{words} of #{size}: the pool may run dry"
        end
      end

      # plugin: the Puma plugin; gate: the env var its line is conditional on
      # (nil: always loaded); production: the gate's value deploy.yml sets.
      # bundled: the app's Gemfile.lock holds the plugin's gem (Puma could not load it otherwise).
      Jobs = Struct.new(:plugin, :gate, :production, :source, :bundled, keyword_init: true) do
        # Ruby's `if ENV["X"]` is true for any value, "false" too.
        def production? = gate.nil? || !production.nil?

        # Its line in a puma.rb, as the app's own has it.
        def config_line = "plugin :#{plugin}#{" if ENV[#{gate.inspect}]" if gate}"

        # The env a server gets to run it as production does (nil: unset).
        def env(on:) = gate ? {gate => (production if on)} : {}

        # Under tune's answer: whether the rounds ran it, against the answer's server.
        def answer_words(on:, server:)
          return "jobs: none ran: #{source} loads Puma's #{plugin} plugin, but #{plugin} is not in the app's bundle" unless bundled
          return "jobs: Solid Queue left out (--no-jobs-in-server); production runs it inside Puma" unless on
          return "jobs: Solid Queue ran inside Puma in these rounds, as in production (--no-jobs-in-server leaves it out)" if server == "puma"
          "jobs: Solid Queue ran inside Puma's configs only, #{server} ran no jobs (--no-jobs-in-server: none ran any)"
        end

        # Whether the servers ran it ("Solid Queue runs inside Puma here, as in production (...)").
        def words(on:)
          where = gate ? "#{gate}=#{production} in config/deploy.yml" : "#{source}'s plugin"
          return "Solid Queue runs inside Puma here, as in production (#{where}); --no-jobs-in-server leaves it out" if on
          "Solid Queue left out of Puma (--no-jobs-in-server); production runs it inside Puma (#{where})"
        end
      end

      # An app file's text, nil when it is not there or cannot be read (never run, only read).
      def self.read(dir, name)
        path = File.join(dir, name)
        File.file?(path) ? File.read(path) : nil
      rescue SystemCallError
        nil
      end

      # A count from a config file or the environment: an Integer, or a string of digits; else nil.
      def self.integer(v)
        return v if v.is_a?(Integer)
        (v.is_a?(String) && v.strip.match?(/\A\d+\z/)) ? v.to_i : nil
      end

      def self.io_threads_warning(puma_version, io_threads)
        return nil unless puma_version && io_threads.to_i.positive? && STUCK_IO_THREADS.satisfied_by?(Gem::Version.new(puma_version))
        "warning: Puma #{puma_version} with max_io_threads #{io_threads} (config/puma.rb) can leave requests stuck " \
          "(puma/puma#3958, fixed on Puma's main, not released)"
      rescue ArgumentError
        nil
      end

      def initialize(dir:, cores: 1)
        @dir = dir
        @cores = cores
      end

      # database.yml's production pool as a server with `env` would read it,
      # or nil without one; rails: the app's Active Record version (nil:
      # unknown, read as 8.1 reads it: max_connections, else pool).
      def pool(env:, rails: nil)
        doc = yaml("config/database.yml", env) or return nil
        config = primary(doc["production"]) or return nil
        keys = (rails && Gem::Version.new(rails) < MAX_CONNECTIONS) ? %w[pool] : %w[max_connections pool]
        key = keys.find { |k| config.key?(k) } or return Pool.new(key: nil, size: DEFAULT_POOL).freeze
        Pool.new(key: key, size: integer(config[key])).freeze
      end

      # config/deploy.yml's clear env (Kamal's `env: clear:`, or a plain `env:` hash), as strings.
      def deploy_env
        env = yaml("config/deploy.yml", APP_ENV)&.dig("env")
        return {} unless env.is_a?(Hash)
        clear = (env.key?("clear") || env.key?("secret")) ? env["clear"] : env
        clear.is_a?(Hash) ? clear.to_h { |k, v| [k.to_s, v.to_s] } : {}
      end

      # Solid Queue's Puma plugin in puma.rb, or nil.
      def jobs
        path, text = puma_file
        found = text&.match(PLUGIN) or return nil
        Jobs.new(plugin: found[:name], gate: found[:gate], production: found[:gate] && deploy_env[found[:gate]], source: path,
          bundled: file("Gemfile.lock").to_s.match?(/^    #{found[:name]} \(/)).freeze
      end

      # The Dockerfile's command when it starts Thruster ("./bin/thrust ./bin/rails server"), else nil.
      def thruster
        line = file("Dockerfile")&.lines&.grep(/\A\s*CMD\s/)&.last or return nil
        words = command_words(line.sub(/\A\s*CMD\s+/, "").strip)
        (words.any? { |w| File.basename(w) == "thrust" }) ? words.join(" ") : nil
      end

      # puma.rb's max_io_threads as the server with `env` would read it, or nil.
      def max_io_threads(env:)
        _, text = puma_file
        return nil unless text
        integer(ConfigReader.new(env: APP_ENV.merge(env), cores: @cores).call(text, names: %w[max_io_threads]).last("max_io_threads")&.first)
      end

      private

      def file(name) = RailsFiles.read(@dir, name)

      def puma_file
        PUMA_FILES.each { |name| (text = file(name)) && (return [name, text]) }
        nil
      end

      # A YAML file with its ERB output tags evaluated (what cannot be is null) and other tags dropped.
      def yaml(name, env)
        text = file(name) or return nil
        reader = ConfigReader.new(env: APP_ENV.merge(env), cores: @cores)
        rendered = text.gsub(ERB_OUTPUT) { reader.evaluate(Regexp.last_match(1))&.to_s || "~" }.gsub(ERB_OTHER, "")
        doc = YAML.safe_load(rendered, aliases: true)
        doc.is_a?(Hash) ? doc : nil
      rescue Psych::Exception
        nil
      end

      # A multi-database environment's primary (or first) database; a single one as it is.
      def primary(env)
        return nil unless env.is_a?(Hash)
        return env unless env.values.all?(Hash)
        env["primary"] || env.values.first
      end

      # CMD ["a", "b"] (exec form) or CMD a b (shell form).
      def command_words(text)
        return text.split unless text.start_with?("[")
        Array(JSON.parse(text)).map(&:to_s)
      rescue JSON::ParserError
        text.split
      end

      def integer(v) = RailsFiles.integer(v)
    end
  end
end
