# frozen_string_literal: true

require "json"
require_relative "../core"
require_relative "../probes/sampler"
require_relative "../support/clock"
require_relative "../system/process_group"

module Arena
  module Remote
    # One engine run on a loader host, inside the agent: the engine connects,
    # says "ready" and waits for "go" on its stdin (--wait-go), so every
    # loader of a run starts at one moment. When it exits, its JSON document
    # (or why there is none) goes to the block, from a thread of its own.
    class LoaderJob
      def initialize(argv:, dir:, name:)
        @argv = argv
        @out = File.join(dir, "#{name}.json")
        @log = File.join(dir, "#{name}.log")
      end

      # Returns once the engine waits for go; raises with its last line if it
      # exits first (cannot connect, bad flag) or is not ready in time.
      def start(ready_timeout:, &done)
        raise Error, "load argv must start with an arena-load path" unless @argv.is_a?(Array) && @argv.all?(String)
        reader, @go = IO.pipe
        @group = System::ProcessGroup.new(@argv, log_path: @log)
        File.open(@out, "w") { |io| @group.start(out: io, input: reader) }
        reader.close
        wait_ready(Support::Clock.now + ready_timeout)
        @waiter = Thread.new { done.call(finish) }
        self
      rescue Error
        abort
        raise
      end

      def go
        # The engine's own CPU on its host: a saturated loader is a finding.
        @sampler = Probes::Sampler.new(pids: -> { @group.tree }, interval: 0.2).start
        @go.puts("go")
        @go.flush
      rescue IOError, SystemCallError
        nil # the engine has already gone; its result says why
      end

      def interrupt = @group&.signal("INT")

      def abort
        @waiter&.kill
        @sampler&.stop
        @group&.stop(grace: 1)
        @go&.close unless @go&.closed?
      end

      private

      def wait_ready(deadline)
        loop do
          return if File.foreach(@log).any? { |l| l.chomp == "ready" }
          raise Error, "load engine exited: #{@group.log_tail(1).first || "no output"}" if @group.exited
          raise Error, "load engine not ready after the deadline" if Support::Clock.now > deadline
          sleep 0.01
        end
      end

      # The engine bounds its own run; it is waited for without a limit here
      # because the caller's own deadline (and its stdin) governs the agent.
      def finish
        sleep 0.02 while @group.alive?
        @go.close unless @go.closed?
        cpu = @sampler&.stop&.cpu_pct
        text = File.read(@out)
        return {"error" => "load engine: #{@group.log_tail(1).first || "no output"}"} if text.strip.empty?
        {"document" => JSON.parse(text), "cpu_pct" => cpu}
      rescue JSON::ParserError => e
        {"error" => "load engine printed invalid JSON: #{e.message[0, 80]}"}
      end
    end
  end
end
