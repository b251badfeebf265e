# frozen_string_literal: true

require "json"
require "fileutils"
require_relative "../core"
require_relative "../results/measurement"
require_relative "../system/process_group"
require_relative "settings"

module Arena
  module Load
    # Spawns `arena-load` (ext/arena_load) with an argument array and parses its
    # JSON once, at this boundary, into Results::LoadFigures (its schema
    # checked). The engine is pinned to its own core; its stderr goes to a log.
    class Engine
      class Failed < Error; end

      # The engine's own documents (engine-N.json, one per run, already
      # folded into results.json) and its log, in one folder of the run
      # directory: whoever opens that directory sees the reports first.
      RAW = "raw"

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

      def initialize(dir:, machine:, path: self.class.path)
        raise Error, "load engine not built: #{path} (run `make -C ext/arena_load`)" unless File.executable?(path)
        @path = path
        @dir = File.join(dir, RAW)
        @machine = machine
        @count = 0
      end

      def argv(target, s)
        args = [@path, "--json"]
        args += ["--cpus", @machine.engine_cpus] if @machine.engine_cpus
        # The table's engine rows as they are, then what a run sets itself (Load::RUN_FLAGS).
        flags = TABLE.select(&:engine).to_h { |row| [row.engine, s[row.name]] }.merge(RUN_FLAGS.to_h { |name, flag| [flag, s[name]] })
        flags.each { |flag, value| args += [flag, number(value)] unless value.nil? }
        (s.headers || []).each { |h| args += ["-H", h] }
        args << "--no-keep-alive" unless s.keep_alive
        args += s.transport.engine_flags(ca: s.cacert) if s.transport # TLS and HTTP/2: the one place they become flags
        # request_start: :warmup the warm-up's requests carry X-Request-Start
        # (not a connection's first), N one request in N (true: every one).
        every = (s.request_start == true) ? 1 : s.request_start
        if every == :warmup then args << "--request-start-warmup"
        elsif every.to_i > 1 then args += ["--request-start-every", every.to_s]
        elsif every then args << "--request-start"
        end
        # Histograms in the JSON, so the rounds' latency merges exactly
        # (Report::Rows) instead of a median of percentiles.
        args << "--histograms"
        args << target
      end

      # Starts a run and returns at once; `EngineRun#wait` gives the Result. Scenarios
      # act on the server while the run is under way.
      def start(target, settings)
        @count += 1
        FileUtils.mkdir_p(@dir)
        out = File.join(@dir, "engine-#{@count}.json")
        log = File.join(@dir, "engine.log")
        log_from = File.size?(log).to_i
        group = System::ProcessGroup.new(argv(target, settings), log_path: log)
        File.open(out, "w") { |io| group.start(out: io) }
        EngineRun.new(group, out, limit: time_limit(settings), log_from: log_from)
      end

      private

      # 5.0 is "5" on the command line, as a person would write it.
      def number(value) = (value.is_a?(Float) && value == value.to_i) ? value.to_i.to_s : value.to_s

      # The engine bounds itself; this is the backstop if it ever does not.
      def time_limit(s)
        busy = s.duration || ((s.requests || s.reps) ? 600 : 10)
        busy + (s.warmup || 0) + (s.timeout || 10) + 15
      end
    end

    # One engine run under way (Engine#start): its figures when it ends (wait), or abort.
    class EngineRun
      # The engine's line describing the first response it could not parse
      # (conn.c's tell_parse_error), kept in its document as "first_unparsable"
      # so a count in errors.parse can be traced to what the server sent.
      UNPARSABLE = "arena-load: unparsable response"

      def initialize(group, out, limit:, log_from: 0)
        @group = group
        @out = out
        @limit = limit
        @log_from = log_from
      end

      # The engine's processes, for sampling its own CPU.
      def pids = @group.tree

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
        Results::LoadFigures.from_engine(with_unparsable(JSON.parse(text)))
      rescue JSON::ParserError => e
        raise Engine::Failed, "load engine printed invalid JSON: #{e.message[0, 120]}"
      rescue Error => e
        raise Engine::Failed, e.message
      end

      def with_unparsable(doc)
        return doc unless doc.is_a?(Hash) && doc.dig("errors", "parse").to_i.positive?
        line = File.open(@group.log_path) do |io|
          io.seek(@log_from)
          io.each_line.first(1000).find { |l| l.start_with?(UNPARSABLE) }
        end
        line ? doc.merge("first_unparsable" => line.chomp) : doc
      rescue SystemCallError
        doc
      end
    end
  end
end
