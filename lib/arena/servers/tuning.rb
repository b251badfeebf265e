# frozen_string_literal: true

require_relative "../support/quote"

module Arena
  module Servers
    # What `arena tune` knows of a server, declared in its adapter next to its
    # `tunable` lines, so nothing under lib/arena/tune/ names a server and a
    # new adapter cannot tune silently from its minimum bounds
    # (test/unit/servers/tuning_test.rb fails for a tunable adapter that lacks any):
    #
    #   tunable "workers", min: 0, max: ->(m) { 2 * m.server_cores }
    #   tunable "threads", min: 1, max: 32
    #   tune_start("a worker per core: Puma's docs (`workers :auto`)") { |cores| {"workers" => cores, "threads" => 5} }
    #   slots("workers x threads") { |s| [s["workers"].to_i, 1].max * s["threads"].to_i }
    #   no_slots "fibers: no fixed ceiling"          # instead of slots, where there is none
    #   def self.config_file(s, rackup:) = ConfigFile.new(name:, text:, command:)
    #   def self.tune_needs_front? = true           # its tunable needs --front nginx (Thin's ports)
    module Tuning
      # A ready-to-commit configuration in the server's own format, and the
      # command line that starts it. The port comes from $PORT where the
      # format allows it. files: {name => text} written beside it, that it
      # loads (a shim the server ran with, so the file reproduces the run).
      ConfigFile = Struct.new(:name, :text, :command, :files, keyword_init: true) do
        def initialize(name:, text:, command:, files: {}) = super

        def with(**changes) = self.class.new(**to_h, **changes)

        # Servers whose own format is the command line: each word quoted for
        # the shell (Quote.sh), "${PORT:-N}" (Quote.port) left to expand.
        def self.script(key, argv, files: {})
          words = argv.map { |w| Support::Quote.sh(w, "#{key}.sh word") }
          new(name: "#{key}.sh", text: "#!/bin/sh\n# Found by `arena tune`.\nexec #{words.join(" ")}\n", command: ["sh", "#{key}.sh"],
            files: files)
        end

        # unicorn.rb (Pitchfork reads the same format): worker count, listener from $HOST/$PORT.
        def self.prefork(name, s, rackup, preload:)
          lines = ["# Found by `arena tune`; #{name} reads it with `#{name} -c #{name}.rb`.",
            "worker_processes #{s["workers"]}", "listen \"\#{ENV.fetch(\"HOST\", \"0.0.0.0\")}:\#{ENV.fetch(\"PORT\", 8080)}\""]
          lines << "timeout #{s["timeout"]}" if s["timeout"]
          lines << "preload_app #{preload}" unless preload.nil?
          lines << "refork_after #{s["refork_after"].split("/").map(&:to_i).inspect}" if s["refork_after"] && s["refork_after"] != "off"
          new(name: "#{name}.rb", text: lines.join("\n") + "\n", command: ["bundle", "exec", name, "-E", "production", "-c", "#{name}.rb", rackup])
        end
      end

      # Where the search starts, with where the rule comes from.
      Start = Struct.new(:source, :rule, keyword_init: true) do
        def call(cores) = rule.call(cores)
      end

      # The concurrent requests a config can hold (nil count: no fixed ceiling).
      Slots = Struct.new(:words, :count, :why, keyword_init: true) do
        def call(settings) = count&.call(settings)
      end

      # The settings `arena tune` searches, one line each in the adapter:
      #   tunable "threads", min: 1, max: 32
      #   tunable "workers", min: 0, max: ->(m) { 2 * m.server_cores }
      # A bound may be a lambda of Machine (lib/arena/tune/space.rb resolves it).
      def tunable(name, min:, max:) = (@tunables ||= {})[name] = {min: min, max: max}.freeze

      def tunables = @tunables || {}

      def tune_start(source = nil, &rule)
        return @tune_start unless rule
        @tune_start = Start.new(source: source, rule: rule).freeze
      end

      def slots(words = nil, &count)
        return @slots unless count
        @slots = Slots.new(words: words, count: count).freeze
      end

      def no_slots(why) = @slots = Slots.new(why: why).freeze

      # This server's config file for these settings (every setting of the
      # winning adapter, tuned and not, so the file reproduces what was
      # measured), or nil where it has none to write.
      def config_file(_settings, rackup:) = nil

      def tune_needs_front? = false
    end

    ConfigFile = Tuning::ConfigFile
  end
end
