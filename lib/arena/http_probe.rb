# frozen_string_literal: true

require "socket"
require "io/wait"

module Arena
  # A deliberately small HTTP/1.1 client for readiness and verification: one
  # request per connection, over TCP or a unix socket. Load never goes through
  # here; that is the engine's job.
  class HttpProbe
    Response = Struct.new(:status, :headers, :body, :chunked, keyword_init: true) do
      def [](name) = headers[name.downcase]
    end

    class Failure < StandardError; end

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
          return "last probe: #{e.message}" if Clock.now > deadline
        end
        sleep 0.05
      end
    end

    def request(method, path, body: nil, headers: {})
      socket = @bind.connect
      lines = ["#{method} #{path} HTTP/1.1", "Host: #{@bind.tcp? ? @bind.to_s : "localhost"}", "Connection: close"]
      headers.each { |k, v| lines << "#{k}: #{v}" }
      lines << "Content-Length: #{body.bytesize}" if body
      socket.write("#{lines.join("\r\n")}\r\n\r\n#{body}")
      parse(read_all(socket))
    rescue SystemCallError, IOError, SocketError => e
      raise Failure, e.message
    ensure
      socket&.close
    end

    def self.parse(raw)
      head, _, rest = raw.partition("\r\n\r\n")
      status_line, *header_lines = head.split("\r\n")
      raise Failure, "no HTTP status line" unless status_line&.match?(%r{\AHTTP/1\.[01] \d{3}})
      headers = header_lines.to_h do |line|
        name, value = line.split(":", 2)
        [name.to_s.strip.downcase, value.to_s.strip]
      end
      chunked = headers["transfer-encoding"].to_s.downcase.include?("chunked")
      body = if chunked
        dechunk(rest)
      elsif headers["content-length"]
        rest.byteslice(0, headers["content-length"].to_i)
      else
        rest
      end
      Response.new(status: status_line.split[1].to_i, headers: headers, body: body, chunked: chunked)
    end

    def self.dechunk(data)
      out = +""
      loop do
        size_line, _, data = data.partition("\r\n")
        size = size_line.split(";").first.to_s.strip.to_i(16)
        break if size.zero?
        out << data.byteslice(0, size)
        data = data.byteslice(size + 2..) || ""
      end
      out
    end

    private

    def parse(raw) = self.class.parse(raw)

    def complete?(buffer)
      head, separator, rest = buffer.partition("\r\n\r\n")
      return false if separator.empty?
      if head =~ /^content-length:\s*(\d+)/i
        rest.bytesize >= $1.to_i
      elsif head.match?(/^transfer-encoding:.*chunked/i)
        rest.match?(/(\A|\r\n)0(;[^\r]*)?\r\n(.*\r\n)*\r\n\z/m)
      else
        false
      end
    end

    def read_all(socket)
      buffer = +""
      deadline = Clock.now + @timeout
      loop do
        left = deadline - Clock.now
        raise Failure, "no complete response within #{@timeout}s" if left <= 0 || !socket.wait_readable(left)
        chunk = socket.read_nonblock(65_536, exception: false)
        break if chunk.nil?
        next if chunk == :wait_readable
        buffer << chunk
        # Some servers (uWSGI) keep the connection open despite
        # "Connection: close": stop once the response is whole.
        break if complete?(buffer)
      end
      raise Failure, "connection closed without a response" if buffer.empty?
      buffer
    end
  end
end
