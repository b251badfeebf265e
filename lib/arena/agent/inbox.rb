# frozen_string_literal: true

require "json"
require_relative "../support/clock"

module Arena
  class Agent
    # The agent's stdin, read on a thread of its own: lines of at most
    # MAX_LINE bytes (a longer one is refused whole, never buffered whole),
    # each a JSON object or refused; pings answered at once, even while the
    # agent is busy starting a server; everything else queued for the agent.
    #
    # The heartbeat: once hello names an interval, a caller that says
    # nothing (not even a ping) for DEADLINE_BEATS intervals is gone (a
    # network partition, a stopped or hung Arena): `next` returns nil as if
    # stdin had closed, and the agent stops everything it started.
    class Inbox
      MAX_LINE = 1 << 20
      DEADLINE_BEATS = 5

      attr_reader :lost

      def initialize(input, reply:)
        @input = input
        @reply = reply
        @queue = Queue.new
        @heard = Support::Clock.now
        @deadline = nil
      end

      def start
        @thread = Thread.new { read }
        self
      end

      def heartbeat(interval)
        @deadline = interval && [interval * DEADLINE_BEATS, 1.0].max
        @heard = Support::Clock.now
      end

      # The next request, or nil once stdin ends or the caller is lost.
      def next
        loop do
          return @queue.pop(true)
        rescue ThreadError
          if @deadline && Support::Clock.now - @heard > @deadline
            @lost = format("no word from the caller for %.1f s (heartbeat deadline)", Support::Clock.now - @heard)
            return nil
          end
          sleep 0.01
        end
      end

      def stop = @thread&.kill

      private

      def read
        while (line = @input.gets("\n", MAX_LINE))
          @heard = Support::Clock.now
          next skip_rest(line) unless line.end_with?("\n") || @input.eof?
          request = parse(line) or next
          (request["op"] == "ping") ? @reply.call(pong: true) : @queue.push(request)
        end
      rescue IOError, SystemCallError
        nil # stdin closed under us (TERM/HUP): the same as its end
      ensure
        @queue.push(nil)
      end

      # The rest of an overlong line is read and dropped in MAX_LINE pieces.
      def skip_rest(head)
        tail = head
        tail = @input.gets("\n", MAX_LINE) until tail.nil? || tail.end_with?("\n")
        @reply.call(id: nil, ok: false, error: "line longer than #{MAX_LINE} bytes refused")
      end

      def parse(line)
        request = JSON.parse(line, max_nesting: 20)
        return request if request.is_a?(Hash)
        @reply.call(id: nil, ok: false, error: "a request is a JSON object")
        nil
      rescue JSON::ParserError
        @reply.call(id: nil, ok: false, error: "not JSON: #{line[0, 60].inspect}")
        nil
      end
    end
  end
end
