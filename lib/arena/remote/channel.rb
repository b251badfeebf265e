# frozen_string_literal: true

require "json"
require_relative "../core"
require_relative "../support/clock"
require_relative "../system/process_group"

module Arena
  module Remote
    # The caller's end of one `arena agent` over SSH: ssh in a System::ProcessGroup of
    # its own, requests written as JSON lines, replies matched to them by id on
    # a reader thread, events handed to a block. Closing it closes the agent's
    # stdin, which makes the agent stop everything it started.
    class Channel
      class Refused < LoggedError; end

      attr_reader :host, :hello

      def initialize(host:, ssh:, log_path:)
        @host = host
        @ssh = ssh
        @log_path = log_path
        @pending = {}
        @lock = Mutex.new
        @next = 0
        @events = []
      end

      # Seconds between pings; the agent is lost after DEADLINE_BEATS of
      # silence, and so is this caller for the agent (Agent::Inbox).
      HEARTBEAT = 2.0
      DEADLINE_BEATS = 5

      # Starts ssh and the agent, and checks the agent's version. hello names
      # the app directory (the agent starts only a rackup inside it) and the
      # one remote address a loader may target.
      def open(version: VERSION, timeout: 30, app_dir: nil, load_target: nil, heartbeat: HEARTBEAT)
        child_in, @writer = IO.pipe
        @reader, child_out = IO.pipe
        @group = System::ProcessGroup.new(@ssh.argv(@host), log_path: @log_path)
        @group.start(out: child_out, input: child_in)
        [child_in, child_out].each(&:close)
        @heard = Support::Clock.now
        @thread = Thread.new { read_loop }
        @hello = request("hello", timeout: timeout, **{version: version, app_dir: app_dir, load_target: load_target,
                                                       heartbeat_s: heartbeat}.compact)
        @beat = Thread.new { beat(heartbeat) } if heartbeat
        self
      rescue Error
        close
        raise
      end

      def on_event(&block) = @lock.synchronize { @events << block }

      # One request; its reply's fields, or Refused with the agent's reason.
      def request(op, timeout: 60, **fields)
        queue = Queue.new
        id = @lock.synchronize do
          raise Error, "#{@host}: connection to the agent is closed (#{last_words})" if @closed
          @pending[@next += 1] = queue
          @next
        end
        write(JSON.generate({id: id, op: op}.merge(fields)))
        reply = pop(queue, timeout)
        raise Error, "#{@host}: agent did not answer #{op} within #{timeout}s" if reply.nil?
        raise Error, "#{@host}: connection to the agent closed (#{last_words})" if reply == :closed
        return reply if reply["ok"]
        raise Refused.new("#{@host}: #{reply["error"]}", log_tail: reply["log_tail"] || [])
      ensure
        @lock.synchronize { @pending.delete(id) } if id
      end

      def closed? = @closed

      # Closes the agent's stdin and waits for it to clean up and leave; ssh
      # is stopped after a short grace if it does not.
      def close(grace: 15)
        @beat&.kill
        @lock.synchronize { @writer&.close unless @writer&.closed? }
        @group&.wait(timeout: grace)
        @group&.stop(grace: 2)
        @thread&.join(2)
        @reader&.close unless @reader&.closed?
      end

      # Drops the connection at once (the test's "cut"; Ctrl-C).
      def kill = @group&.signal("KILL")

      def pid = @group&.pid

      private

      def write(line)
        @lock.synchronize do
          @writer.puts(line)
          @writer.flush
        end
      rescue IOError, SystemCallError
        raise Error, "#{@host}: connection to the agent is closed (#{last_words})"
      end

      # Lines that are not JSON objects (a login script's `null`, a banner)
      # are skipped: only the agent's messages mean anything here.
      def read_loop
        while (line = @reader.gets)
          @heard = Support::Clock.now
          message = begin
            JSON.parse(line)
          rescue JSON::ParserError
            next
          end
          next unless message.is_a?(Hash)
          if message["event"]
            @lock.synchronize { @events.dup }.each { |block| block.call(message) }
          else
            @lock.synchronize { @pending[message["id"]] }&.push(message)
          end
        end
      rescue IOError
        nil
      ensure
        @lock.synchronize do
          @closed = true
          @pending.each_value { |q| q.push(:closed) }
        end
        @lock.synchronize { @events.dup }.each { |block| block.call({"event" => "closed"}) }
      end

      # A ping every interval; an agent silent for DEADLINE_BEATS intervals
      # (a partition, a hung host) is dropped: ssh is killed, which ends the
      # reader and fails every pending request at once.
      def beat(interval)
        until @closed
          sleep interval
          silent = Support::Clock.now - @heard
          if silent > interval * DEADLINE_BEATS
            @lost = format("no word from the agent for %.1f s (heartbeat deadline)", silent)
            @group&.signal("KILL")
            break
          end
          write(JSON.generate(op: "ping"))
        end
      rescue Error
        nil # the connection is closed: the reader says so
      end

      # Queue#pop(timeout:) is Ruby 3.2; this is the same on 3.1.
      def pop(queue, timeout)
        deadline = Support::Clock.now + timeout
        loop do
          return queue.pop(true)
        rescue ThreadError
          return nil if Support::Clock.now > deadline
          sleep 0.005
        end
      end

      def last_words = @lost || @group&.log_tail(1)&.first || "ssh said nothing"
    end
  end
end
