# frozen_string_literal: true

require "fileutils"
require_relative "../load/engine"
require_relative "../load/profile"
require_relative "../load/settings"
require_relative "../plan/machine"
require_relative "../results/measurement"
require_relative "../support/clock"
require_relative "merge"

module Arena
  module Remote
    # The local engine aimed at the server host: the same Load::Engine, with
    # --allow-remote for that one address and no other.
    class ServerHostEngine < Load::Engine
      def initialize(allow:, **kw)
        super(**kw)
        @allow = allow
      end

      def argv(target, settings)
        args = super
        allowed?(target) ? args.insert(-2, "--allow-remote") : args
      end

      private

      def allowed?(target)
        host = target[%r{\Ahttps?://(\[[^\]]+\]|[^:/]+)}, 1]&.delete_prefix("[")&.delete_suffix("]")
        host == @allow
      end
    end

    # Several loader hosts as one engine (Load::Engine's interface): each
    # runs arena-load through its agent, the connections (and -R, -n, each
    # stage's rates of a --profile) split evenly; all wait for one "go"; their histograms merge exactly.
    class LoaderFleet
      def initialize(channels:, allow:, dir:)
        @channels = channels
        @allow = allow
        @dir = dir
        @count = 0
        # Flags only, never pinned: a loader host's cores are its own.
        @flags = ServerHostEngine.new(allow: allow, dir: dir, machine: Plan::Machine.new(cores: 1, shared: true).freeze)
      end

      # The argv as recorded with a measurement: the whole, before splitting,
      # as one local engine would run it (the readers of a record find -c
      # there, whichever side loaded).
      def argv(target, settings) = ["arena-load", *@flags.argv(target, settings).drop(1)]

      def start(target, settings)
        n = @channels.size
        raise Error, "--loader-hosts: #{n} loaders need at least #{n} connections" if settings.connections.to_i < n
        @count += 1
        parts = @channels.each_with_index.map { |ch, i| [ch, engine_args(target, share(settings, i, n))] }
        raw = FileUtils.mkdir_p(File.join(@dir, Load::Engine::RAW)).first
        FleetRun.new(parts, out: File.join(raw, "loaders-#{@count}.json"), limit: limit(settings)).start
      end

      private

      def share(s, i, n)
        split = ->(total) { total && (total / n + ((i < total % n) ? 1 : 0)) }
        c = split.call(s.connections)
        s.with(connections: c, threads: [s.threads || 1, c].min, requests: split.call(s.requests),
          rate: s.rate && (s.rate.to_f / n), profile: s.profile && Load::Profile.share(s.profile, n))
      end

      # The engine's settings as typed fields: the agent builds the argv
      # (Agent::LoadRequest) and adds --allow-remote for its one address.
      def engine_args(target, s)
        fields = {target: target, keep_alive: s.keep_alive ? true : false, headers: s.headers || []}
        (Load::TABLE.select(&:engine).map(&:name) + %i[requests reps rate profile timeline_ms expect_status expect_body method])
          .each { |name| fields[name] = s[name] unless s[name].nil? }
        # The mix and a request body travel as content: the agent writes its own copies.
        fields[:mix] = File.read(s.mix_file) if s.mix_file
        fields[:body] = [File.binread(s.body_file)].pack("m0") if s.body_file
        fields
      end

      def limit(s)
        busy = s.duration || (s.profile && Load::Profile.engine_seconds(s.profile)) || ((s.requests || s.reps) ? 600 : 10)
        busy + (s.warmup || 0) + (s.timeout || 10) + 30
      end
    end

    # One measurement across the fleet: started together on "go", waited
    # for together, merged into one engine document.
    class FleetRun
      def initialize(parts, out:, limit:)
        @parts = parts
        @out = out
        @limit = limit
        @results = Queue.new
        @handles = {}
      end

      def start
        @parts.each do |channel, args|
          channel.on_event { |e| @results.push([channel, e]) if e["event"] == "closed" || @handles[channel] == e["handle"] }
          @handles[channel] = channel.request("load", timeout: 60, **args)["handle"]
        end
        # Every engine is connected and waiting: one go each, back to back.
        @parts.each { |channel, _| channel.request("go", handles: [@handles[channel]]) }
        self
      rescue Error
        abort
        raise
      end

      # The loaders' own CPU is theirs to report; nothing to sample here.
      def pids = []

      def abort
        @parts.each do |channel, _|
          channel.request("interrupt", timeout: 5, handle: @handles[channel]) if @handles[channel] && !channel.closed?
        rescue Error
          nil
        end
      end

      def wait
        deadline = Support::Clock.now + @limit
        docs = {}
        until docs.size == @parts.size
          got = pop(deadline) or raise Load::Engine::Failed, "loaders did not finish within #{@limit}s"
          channel, event = got
          raise Load::Engine::Failed, "#{channel.host}: connection lost during the run" if event["event"] == "closed"
          raise Load::Engine::Failed, "#{channel.host}: #{event["error"]}" if event["error"]
          docs[channel] = event["document"].merge("loader_cpu_pct" => event["cpu_pct"])
        end
        raws = @parts.map { |channel, _| docs.fetch(channel) }
        merged = Merge.call(raws, hosts: @parts.map { |channel, _| channel.host.to_s })
        File.write(@out, JSON.generate("loaders" => raws, "merged" => merged))
        Results::LoadFigures.from_engine(merged)
      end

      private

      def pop(deadline)
        loop do
          return @results.pop(true)
        rescue ThreadError
          return nil if Support::Clock.now > deadline
          sleep 0.01
        end
      end
    end
  end
end
