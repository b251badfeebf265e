# frozen_string_literal: true

require "socket"
require "io/wait"
require_relative "../support/clock"
require_relative "http_parser"

module Arena
  class Verify
    # A deliberately small HTTP/1.1 client for readiness and verification: one
    # request per connection, over TCP or a unix socket. Load never goes through
    # here; that is the engine's job.
    class HttpProbe
      Response = Struct.new(:status, :headers, :body, :chunked, keyword_init: true) do
        def [](name) = headers[name.downcase]
      end

      def initialize(bind, timeout: 5)
        @bind = bind
        @timeout = timeout
      end

      def get(path, headers: {}) = request("GET", path, headers: headers)

      # The one readiness loop: GET `path` until it is answered. Returns nil when
      # it was, else what went wrong: the block's word (the process exited), or
      # the last probe's failure once the deadline passed.
      def await(path = "/", deadline:)
        loop do
          gone = block_given? && yield
          return gone if gone
          begin
            get(path)
            return nil
          rescue Failure => e
            return "last probe: #{e.message}" if Support::Clock.now > deadline
          end
          sleep 0.05
        end
      end

      # The request line and headers are the caller's words: a CR, LF or NUL
      # in any of them would inject a header (or a second request), so they
      # are refused. A user's Host header replaces the probe's own.
      def request(method, path, body: nil, headers: {})
        head = request_head(method, path, headers, body)
        socket = @bind.connect(timeout: @timeout)
        socket.write("#{head}#{body}")
        read_response(socket, head_request: method == "HEAD")
      rescue SystemCallError, IOError, SocketError => e
        raise Failure, e.message
      ensure
        socket&.close
      end

      # The whole response in one string, as a test or a stored reply has it.
      def self.parse(raw, head_request: false)
        parser = Parser.new(head: head_request)
        parser << raw
        parser.eof! unless parser.done?
        response(parser)
      end

      def self.response(parser)
        Response.new(status: parser.status, headers: parser.headers, body: parser.body, chunked: parser.chunked)
      end

      private

      UNSAFE = /[\r\n\0]/

      def request_head(method, path, headers, body)
        raise Failure, "refused: a method is a token (#{method.inspect})" unless method.match?(/\A[A-Z]+\z/)
        raise Failure, "refused: CR, LF or NUL in the path #{path.inspect}" if path.match?(UNSAFE) || path.include?(" ")
        headers.each do |k, v|
          raise Failure, "refused: CR, LF or NUL in the header #{k.inspect}" if "#{k}#{v}".match?(UNSAFE) || k.to_s.include?(":")
        end
        host = headers.find { |k, _| k.to_s.casecmp?("host") }&.last || (@bind.tcp? ? @bind.to_s : "localhost")
        lines = ["#{method} #{path} HTTP/1.1", "Host: #{host}", "Connection: close"]
        headers.each { |k, v| lines << "#{k}: #{v}" unless k.to_s.casecmp?("host") }
        lines << "Content-Length: #{body.bytesize}" if body
        "#{lines.join("\r\n")}\r\n\r\n"
      end

      # Each read is parsed once, as it arrives; the deadline is checked
      # between reads. Some servers (uWSGI) keep the connection open despite
      # "Connection: close": the read stops once the response is whole. It
      # reads before it waits, and waits on the plain socket under a TLS one
      # (to_io): what TLS has already decrypted is read at once, and the
      # openssl gem that Ruby 3.1 ships has no wait_readable of its own.
      def read_response(socket, head_request:)
        parser = Parser.new(head: head_request)
        deadline = Support::Clock.now + @timeout
        until parser.done?
          left = deadline - Support::Clock.now
          raise Failure, "no complete response within #{@timeout}s" if left <= 0
          case (chunk = socket.read_nonblock(65_536, exception: false))
          when :wait_readable then socket.to_io.wait_readable(left)
          when :wait_writable then socket.to_io.wait_writable(left)
          when nil then break parser.eof!
          else parser << chunk
          end
        end
        self.class.response(parser)
      end
    end
  end
end
