# frozen_string_literal: true

require "socket"
require "tmpdir"

module Arena
  # Small HTTP/1.1 servers, good and bad, that the engine tests aim at.
  #
  # Each one is a plain listener with one thread per connection: a few thousand
  # requests per second, which is plenty for loads of 0.2-3 s. Start them with
  # the block form so they are always stopped:
  #
  #   Arena::TestServers::Reset.open { |server| run_engine(server.target) }
  #
  # `stop` closes the listener, kills every connection thread (their ensure
  # blocks close the sockets) and removes a unix socket's file and directory, so
  # a test leaves no thread, descriptor or file behind.
  module TestServers
    Request = Struct.new(:method, :path, :version, :headers, :body, keyword_init: true) do
      # HTTP/1.1 keeps the connection unless asked not to; HTTP/1.0 closes
      # unless asked to keep it.
      def close?
        connection = headers.fetch("connection", "").downcase
        return connection != "keep-alive" if version == "HTTP/1.0"
        connection == "close"
      end
    end

    class MalformedRequest < StandardError; end

    # Reads requests one after another from a socket, pipelined or not.
    class RequestReader
      def initialize(io)
        @io = io
        @buffer = +"".b
      end

      # The next request, or nil when the peer closed between requests.
      def next_request
        until (head_end = @buffer.index("\r\n\r\n"))
          return nil unless fill
        end
        head = @buffer.slice!(0, head_end + 4)
        request_line, *header_lines = head.split("\r\n")
        method, path, version = request_line.to_s.split(" ", 3)
        raise MalformedRequest, request_line.inspect unless version&.start_with?("HTTP/1.")
        headers = header_lines.each_with_object({}) do |line, acc|
          name, value = line.split(":", 2)
          acc[name.strip.downcase] = value.to_s.strip if name
        end
        Request.new(method: method, path: path, version: version, headers: headers, body: read_body(headers))
      end

      private

      def read_body(headers)
        raise MalformedRequest, "chunked request bodies are not supported here" if headers["transfer-encoding"]
        length = headers.fetch("content-length", "0").to_i
        while @buffer.bytesize < length
          raise EOFError, "peer closed inside a request body" unless fill
        end
        @buffer.slice!(0, length)
      end

      def fill
        @buffer << @io.readpartial(16_384)
        true
      rescue EOFError, Errno::ECONNRESET
        false
      end
    end

    # The listener, the connection threads and their clean stop. Subclasses
    # implement `serve(socket)`.
    class Base
      attr_reader :accepted

      def self.open(**options)
        server = new(**options).start
        yield server
      ensure
        server&.stop
      end

      def initialize(unix: false)
        @unix = unix
        @threads = ThreadGroup.new
        @mutex = Mutex.new
        @accepted = 0
        @stopping = false
      end

      def start
        @listener = @unix ? UNIXServer.new(socket_path) : TCPServer.new("127.0.0.1", 0)
        @started_at = monotonic
        acceptor = Thread.new { accept_loop }
        @threads.add(acceptor) # connection threads inherit the acceptor's group
        @acceptor = acceptor
        self
      end

      def port
        @listener.addr[1]
      end

      # What the engine takes as its target argument.
      def target(path = "/")
        @unix ? "unix:#{socket_path}:#{path}" : "http://127.0.0.1:#{port}#{path}"
      end

      def stop
        @stopping = true
        @listener&.close
        @acceptor&.join(2)
        @threads.list.each(&:kill)
        @threads.list.each { |thread| thread.join(2) }
        if @unix
          File.unlink(socket_path) if File.exist?(socket_path)
          Dir.rmdir(@socket_dir) if @socket_dir && Dir.exist?(@socket_dir)
        end
      rescue IOError
        nil
      end

      private

      def socket_path
        @socket_dir ||= Dir.mktmpdir("arena-sock")
        File.join(@socket_dir, "s.sock")
      end

      def accept_loop
        Thread.current.report_on_exception = false
        until @stopping
          socket = @listener.accept
          @mutex.synchronize { @accepted += 1 }
          Thread.new(socket) { |client| serve_safely(client) }
        end
      rescue IOError, SystemCallError
        nil # the listener was closed by stop
      end

      def serve_safely(socket)
        Thread.current.report_on_exception = false
        socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1) unless @unix
        serve(socket)
      rescue IOError, SystemCallError, MalformedRequest
        nil # the peer went away or the server is stopping: nothing to report
      ensure
        socket.close unless socket.closed?
      end

      def serve(_socket)
        raise NotImplementedError
      end

      def monotonic
        Process.clock_gettime(Process::CLOCK_MONOTONIC)
      end

      def elapsed
        monotonic - @started_at
      end

      # Half-closes, then reads until the peer closes: the final close then
      # sends FIN, never RST, even if the client had written more (a request
      # the server chose not to read).
      def close_politely(socket)
        socket.close_write
        deadline = monotonic + 1
        while monotonic < deadline
          break unless socket.wait_readable(deadline - monotonic)
          socket.readpartial(4096)
        end
      rescue EOFError, SystemCallError
        nil
      end

      def response(status: 200, body: "", headers: {})
        lines = ["HTTP/1.1 #{status} #{REASONS.fetch(status, "Status")}"]
        lines << "Content-Type: text/plain"
        lines << "Content-Length: #{body.bytesize}"
        headers.each { |name, value| lines << "#{name}: #{value}" }
        "#{lines.join("\r\n")}\r\n\r\n#{body}"
      end

      REASONS = {200 => "OK", 201 => "Created", 404 => "Not Found", 500 => "Internal Server Error",
                 503 => "Service Unavailable"}.freeze
    end

    # A correct keep-alive server. `/status/NNN` answers with that status; any
    # other path answers 200 with `body`. It counts requests per "METHOD path"
    # and keeps the last request seen per path, so tests can check what the
    # engine actually sent. With `limit:` it answers that many requests on a
    # connection, then waits for the next one and closes without answering
    # it or announcing the close: a keep-alive limit racing the client's next
    # request, made deterministic. Clients retry such a request. `close_delay`
    # waits that long before that close, so the request sent again is late.
    class KeepAlive < Base
      DEFAULT_BODY = "hello arena"

      def initialize(body: DEFAULT_BODY, limit: nil, close_delay: 0, **options)
        super(**options)
        @body = body
        @limit = limit
        @close_delay = close_delay
        @counts = Hash.new(0)
        @last = {}
      end

      def counts
        @mutex.synchronize { @counts.dup }
      end

      def last_request(path)
        @mutex.synchronize { @last[path] }
      end

      def total_requests
        counts.values.sum
      end

      # Bytes on the wire for one keep-alive answer to an ordinary path.
      def response_size
        response(body: @body).bytesize
      end

      private

      def serve(socket)
        reader = RequestReader.new(socket)
        served = 0
        while (request = reader.next_request)
          record(request)
          extra = request.close? ? {"Connection" => "close"} : {}
          socket.write(answer(request, extra))
          break if request.close?
          served += 1
          next unless @limit && served >= @limit
          return unless reader.next_request
          sleep(@close_delay) if @close_delay > 0
          return close_politely(socket)
        end
      end

      def answer(request, extra)
        status = request.path[%r{\A/status/(\d{3})\z}, 1]
        return response(status: status.to_i, body: "status #{status}", headers: extra) if status
        response(body: @body, headers: extra)
      end

      def record(request)
        @mutex.synchronize do
          @counts["#{request.method} #{request.path}"] += 1
          @last[request.path] = request
        end
      end
    end

    # Reads the request, then resets the connection: SO_LINGER with a zero
    # timeout makes close send RST instead of FIN.
    class Reset < Base
      private

      def serve(socket)
        return unless RequestReader.new(socket).next_request
        socket.setsockopt(Socket::SOL_SOCKET, Socket::SO_LINGER, [1, 0].pack("ii"))
        socket.close
      end
    end

    # Reads the whole request, then closes cleanly (FIN) without a byte of
    # response. The request was read, so the kernel sends FIN, not RST.
    class CloseBeforeResponse < Base
      private

      def serve(socket)
        return unless RequestReader.new(socket).next_request
        socket.close
      end
    end

    # Reads the request and never answers; the connection stays open until the
    # engine gives up or the server stops.
    class Stall < Base
      private

      def serve(socket)
        return unless RequestReader.new(socket).next_request
        socket.read # until the engine closes; stop kills this thread
      end
    end

    # Answers 200 with a chunked body sent piece by piece, sleeping `delay`
    # before each piece, so every response takes at least pieces * delay.
    # Chunk extensions and a trailer are included on purpose: the parser must
    # skip them. The decoded body is the pieces joined.
    class SlowChunks < Base
      attr_reader :pieces, :delay

      def initialize(pieces: %w[hello wor ld], delay: 0.05, **options)
        super(**options)
        @pieces = pieces
        @delay = delay
      end

      def body
        pieces.join
      end

      def minimum_latency
        pieces.size * delay
      end

      private

      def serve(socket)
        reader = RequestReader.new(socket)
        while (request = reader.next_request)
          socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
          pieces.each_with_index do |piece, index|
            sleep(delay)
            socket.write("#{piece.bytesize.to_s(16)};piece=#{index}\r\n#{piece}\r\n")
          end
          socket.write("0\r\nX-Arena-Trailer: done\r\n\r\n")
          break if request.close?
        end
      end
    end

    # Answers every request correctly and closes after it, the way Unicorn
    # does. `style: :connection_close` sends `Connection: close` with a
    # Content-Length; `style: :http10` answers HTTP/1.0 without a length, the
    # body delimited by the close. Neither is an error for a client.
    #
    # `idle_times` holds, per connection, the seconds from its accept to its
    # request: how long the client kept it open before using it.
    class CloseAfterEach < Base
      BODY = "closing politely"

      def initialize(style: :connection_close, **options)
        super(**options)
        @style = style
        @served = 0
        @idle_times = []
      end

      def served
        @mutex.synchronize { @served }
      end

      def idle_times
        @mutex.synchronize { @idle_times.dup }
      end

      private

      def serve(socket)
        accepted_at = monotonic
        return unless RequestReader.new(socket).next_request
        @mutex.synchronize { @idle_times << monotonic - accepted_at }
        socket.write(payload)
        @mutex.synchronize { @served += 1 }
        close_politely(socket)
      end

      def payload
        if @style == :http10
          "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n#{BODY}"
        else
          response(body: BODY, headers: {"Connection" => "close"})
        end
      end
    end

    # Answers every request with bytes that are not HTTP.
    class Garbage < Base
      private

      def serve(socket)
        reader = RequestReader.new(socket)
        socket.write("SMTP/1.0 220 hello there\r\n\r\n") while reader.next_request
      end
    end

    # Answers at once (or after `service` seconds), except that once per
    # `period` it freezes for `freeze` seconds: a request arriving during the
    # freeze waits for its end. The first freeze starts `period - freeze` after
    # start, then every period. Used to prove coordinated-omission correction;
    # `service` slows a single connection down to a chosen closed-loop rate.
    class Freezer < KeepAlive
      attr_reader :freeze, :period

      def initialize(freeze: 0.5, period: 1.0, service: 0, **options)
        super(**options)
        @freeze = freeze
        @period = period
        @service = service
      end

      private

      def answer(request, extra)
        sleep(@service) if @service > 0
        remaining = freeze_remaining
        sleep(remaining) if remaining > 0
        super
      end

      def freeze_remaining
        phase = elapsed % period
        (phase >= period - freeze) ? period - phase : 0
      end
    end
  end
end
