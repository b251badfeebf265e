# frozen_string_literal: true

require "json"

module Arena
  module Remote
    # The caller's end of one `arena agent` over SSH: ssh in a ProcessGroup of
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

      # Starts ssh and the agent, and checks the agent's version.
      def open(version: VERSION, timeout: 30)
        child_in, @writer = IO.pipe
        @reader, child_out = IO.pipe
        @group = ProcessGroup.new(@ssh.argv(@host), log_path: @log_path)
        @group.start(out: child_out, input: child_in)
        [child_in, child_out].each(&:close)
        @thread = Thread.new { read_loop }
        @hello = request("hello", timeout: timeout, version: version)
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
        @writer&.close unless @writer&.closed?
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

      def read_loop
        while (line = @reader.gets)
          message = begin
            JSON.parse(line)
          rescue JSON::ParserError
            next
          end
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

      # Queue#pop(timeout:) is Ruby 3.2; this is the same on 3.1.
      def pop(queue, timeout)
        deadline = Clock.now + timeout
        loop do
          return queue.pop(true)
        rescue ThreadError
          return nil if Clock.now > deadline
          sleep 0.005
        end
      end

      def last_words = @group&.log_tail(1)&.first || "ssh said nothing"
    end
  end
end
