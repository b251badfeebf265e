# frozen_string_literal: true

require "json"
require_relative "../core"
require_relative "config_reader"
require_relative "plan"
require_relative "rails_files"

module Arena
  class Plan
    # What the app runs today, the reference of the answer's gain: read from
    # the app's own files, first found wins: the Procfile's web line (the
    # server it starts, its -t/-w flags, the config file it names),
    # config/puma.rb, config/unicorn.rb, Passengerfile.json; else the Rails
    # default, Puma with 3 threads in one process (Rails 7.2's generated
    # puma.rb: RAILS_MAX_THREADS default 3; Puma's cluster only with
    # WEB_CONCURRENCY). Config files are parsed (ConfigReader), never run.
    # RAILS_MAX_THREADS and WEB_CONCURRENCY are read from `env` (Arena's
    # environment and --env, with RAILS_ENV=production) over
    # config/deploy.yml's clear env (production's, Kamal's), as the file
    # would; WEB_CONCURRENCY=auto (Puma 7's) is a worker per core the server gets.
    class Baseline
      RAILS_DEFAULT = {"puma" => {"threads" => 3, "workers" => 0}}.freeze
      # Puma's own defaults, without a threads or workers line: 5 threads (MRI), WEB_CONCURRENCY workers.
      PUMA_THREADS = 5

      Found = Struct.new(:server, :settings, :source, :notes, keyword_init: true) do
        # "config/puma.rb (puma, 3 threads, 1 process)"
        def words = "#{source} (#{shape})"

        # In a sentence: "your config/puma.rb (...)", or "the Rails default (...)" (not the user's).
        def yours = default? ? words : "your #{words}"

        def default? = source == "the Rails default"

        def shape
          threads = settings["threads"]
          processes = settings["workers"] || settings["count"] || settings["processes"] || settings["pool"] || settings["servers"]
          processes = 1 if server == "puma" && processes.to_i.zero?
          parts = [server]
          parts << "#{threads} #{(threads == 1) ? "thread" : "threads"}" if threads
          parts << "#{processes} #{(processes.to_i == 1) ? "process" : "processes"}" if processes
          parts.join(", ")
        end

        # The --servers spec of it ("puma:threads=3,workers=0").
        def spec = "#{server}:#{settings.map { |k, v| "#{k}=#{v}" }.join(",")}"
      end

      def initialize(dir:, env:, cores:)
        @dir = dir
        @env = APP_ENV.merge(dir ? RailsFiles.new(dir: dir).deploy_env : {}).merge(env)
        @cores = cores
      end

      def call
        return default("no app directory") unless @dir
        procfile || puma || unicorn || passenger || default(nil)
      end

      private

      def default(note)
        Found.new(server: "puma", settings: RAILS_DEFAULT["puma"].dup, source: "the Rails default",
          notes: [note || "no Procfile, config/puma.rb, config/unicorn.rb or Passengerfile.json"].freeze).freeze
      end

      def file(name) = RailsFiles.read(@dir, name)

      def reader = ConfigReader.new(env: @env, cores: @cores)

      # The Procfile's web process: its server, flags and config file.
      def procfile
        text = file("Procfile") or return nil
        line = text.lines.find { |l| l.start_with?("web:") } or return nil
        words = line.delete_prefix("web:").split
        config = flag(words, "-C", "--config")
        if words.any? { |w| w.end_with?("puma") } || words.each_cons(2).any? { |a, b| a.end_with?("rails") && %w[server s].include?(b) }
          found = puma(path: config || "config/puma.rb", source: "Procfile (#{line.strip[0, 60]})") ||
            Found.new(server: "puma", settings: puma_defaults, source: "Procfile", notes: [].freeze)
          return with_flags(found, words)
        end
        return unicorn(path: flag(words, "-c", "--config-file") || "config/unicorn.rb", source: "Procfile") if words.any? { |w| w.end_with?("unicorn") }
        return passenger(source: "Procfile") if words.include?("passenger")
        nil
      end

      def flag(words, *names)
        i = words.index { |w| names.include?(w) }
        i && words[i + 1]
      end

      # puma -t MIN:MAX -w N over what its file said.
      def with_flags(found, words)
        settings = found.settings.dup
        threads = flag(words, "-t", "--threads")
        settings["threads"] = threads.split(":").last.to_i if threads&.match?(/\A\d+(:\d+)?\z/)
        workers = flag(words, "-w", "--workers")
        settings["workers"] = workers.to_i if workers&.match?(/\A\d+\z/)
        Found.new(server: found.server, settings: settings, source: found.source, notes: found.notes).freeze
      end

      def puma_defaults
        {"threads" => integer(@env["PUMA_MAX_THREADS"] || @env["MAX_THREADS"]) || PUMA_THREADS,
         "workers" => workers(@env["WEB_CONCURRENCY"]) || 0}
      end

      def puma(path: "config/puma.rb", source: path)
        text = file(path) || file("config/puma/production.rb") or return nil
        read = reader.call(text, names: %w[threads workers])
        settings = puma_defaults
        threads = read.last("threads")
        settings["threads"] = integer(threads.last) || settings["threads"] if threads
        workers = read.last("workers")
        settings["workers"] = workers(workers.first) || settings["workers"] if workers
        notes = read.unknown.map { |u| "#{path}: #{u} could not be read without running it; Puma's default stands" }
        Found.new(server: "puma", settings: settings, source: source, notes: notes.freeze).freeze
      end

      def unicorn(path: "config/unicorn.rb", source: path)
        text = file(path) or return nil
        read = reader.call(text, names: %w[worker_processes])
        workers = integer(read.last("worker_processes")&.first) || 1
        Found.new(server: "unicorn", settings: {"workers" => workers}, source: source, notes: read.unknown.freeze).freeze
      end

      # Passengerfile.json: its pool (max_pool_size, else min_instances, else Passenger's 6).
      def passenger(source: "Passengerfile.json")
        text = file("Passengerfile.json")
        return nil if text.nil? && source == "Passengerfile.json"
        doc = text ? JSON.parse(text) : {}
        pool = integer(doc["max_pool_size"]) || integer(doc["min_instances"]) || 6
        Found.new(server: "passenger", settings: {"pool" => pool}, source: source, notes: [].freeze).freeze
      rescue JSON::ParserError
        nil
      end

      # A worker count: a number, or :auto / "auto" (a worker per core).
      def workers(v) = (v.to_s == "auto") ? @cores : integer(v)

      def integer(v) = RailsFiles.integer(v)
    end
  end
end
