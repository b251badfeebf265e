# frozen_string_literal: true

require "json"

module Arena
  module Load
    # What one engine run is asked to do. nil means "the engine's default".
    Settings = Struct.new(:connections, :threads, :duration, :warmup, :requests, :reps, :rate,
      :keep_alive, :timeout, :method, :body_file, :expect_status, :expect_body, :headers, :pipeline,
      keyword_init: true) do
      def self.build(**kw) = new(keep_alive: true, threads: 1, timeout: 10, **kw).freeze

      def with(**changes) = self.class.new(**to_h, **changes).freeze
    end

    # The engine's JSON document, kept whole in `raw` (it goes into the results
    # file as it is) with readers for what Arena itself looks at.
    Result = Struct.new(:raw, keyword_init: true) do
      def throughput = raw.fetch("throughput_rps", 0.0)

      def completed = raw.dig("requests", "completed").to_i

      def errors = raw.fetch("errors", {})

      def error_total = errors.fetch("total") { errors.values.sum }

      def latency_us(name) = raw.dig("latency_us", name)

      def timeline = raw.fetch("timeline", [])

      def duration_s = raw.fetch("duration_s", 0.0)
    end

    # Spawns `arena-load` (ext/arena_load) with an argument array and parses its
    # JSON. The engine is pinned to its own core; its stderr goes to a log.
    class Engine
      class Failed < Error; end

      # The checkout's build; else where `gem install` put it (ext/arena_load/extconf.rb):
      # RubyGems copies it into the gem's lib/ and its extension directory.
      DEFAULT_PATH = [
        File.expand_path("../../../ext/arena_load/arena-load", __dir__), File.expand_path("../../arena-load", __dir__),
        Gem.loaded_specs["rack-arena"]&.then { |spec| File.join(spec.extension_dir, "arena-load") }
      ].compact.find { |path| File.executable?(path) } || File.expand_path("../../../ext/arena_load/arena-load", __dir__)

      def self.path = ENV.fetch("ARENA_LOAD", DEFAULT_PATH)

      def self.version(path = self.path)
        IO.popen([path, "--version"], err: File::NULL, &:read).to_s.strip[/[\d.]+\S*/]
      rescue SystemCallError
        nil
      end

      def initialize(dir:, path: self.class.path, machine: Machine.current)
        raise Error, "load engine not built: #{path} (run `make -C ext/arena_load`)" unless File.executable?(path)
        @path = path
        @dir = dir
        @machine = machine
        @count = 0
      end

      def argv(target, s)
        args = [@path, "--json", "-c", s.connections.to_s, "-t", s.threads.to_s]
        args += ["--cpus", @machine.engine_cpus] if @machine.engine_cpus
        {"-d" => s.duration, "-w" => s.warmup, "-n" => s.requests, "-r" => s.reps, "-R" => s.rate,
         "--timeout" => s.timeout, "-m" => s.method, "--body" => s.body_file, "-p" => s.pipeline,
         "--expect-status" => s.expect_status, "--expect-body" => s.expect_body}.each do |flag, value|
          args += [flag, value.to_s] unless value.nil?
        end
        (s.headers || []).each { |h| args += ["-H", h] }
        args << "--no-keep-alive" unless s.keep_alive
        args << target
      end

      # Starts a run and returns at once; `Run#wait` gives the Result. Scenarios
      # act on the server while the run is under way.
      def start(target, settings)
        @count += 1
        out = File.join(@dir, "engine-#{@count}.json")
        group = ProcessGroup.new(argv(target, settings), log_path: File.join(@dir, "engine.log"))
        File.open(out, "w") { |io| group.start(out: io) }
        Run.new(group, out, limit: time_limit(settings))
      end

      def run(target, settings) = start(target, settings).wait

      private

      # The engine bounds itself; this is the backstop if it ever does not.
      def time_limit(s)
        busy = s.duration || ((s.requests || s.reps) ? 600 : 10)
        busy + (s.warmup || 0) + (s.timeout || 10) + 15
      end
    end

    class Run
      def initialize(group, out, limit:)
        @group = group
        @out = out
        @limit = limit
      end

      def pid = @group.pid

      # Ends the run early; the engine still prints what it measured.
      def interrupt = @group.signal("INT")

      # Ends the run and discards it (Arena itself is stopping).
      def abort = @group.stop(grace: 1)

      def wait
        status = @group.wait(timeout: @limit)
        if status.nil?
          @group.signal("TERM")
          status = @group.wait(timeout: 5)
        end
        @group.stop(grace: 1)
        parse(status)
      end

      private

      def parse(status)
        text = File.read(@out)
        raise Engine::Failed, "load engine: #{@group.log_tail(1).first || "no output (#{status.inspect})"}" if text.strip.empty?
        Result.new(raw: JSON.parse(text)).freeze
      rescue JSON::ParserError => e
        raise Engine::Failed, "load engine printed invalid JSON: #{e.message[0, 120]}"
      end
    end
  end
end
