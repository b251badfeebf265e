# frozen_string_literal: true

require "socket"
require_relative "../core"
require_relative "../support/clock"

module Arena
  module Load
    # Connections that hold a server's attention while doing almost nothing:
    # request headers a few bytes at a time, an upload trickled in, or a large
    # response read slowly. One thread each, all bounded by a deadline; Load
    # only goes to the server's own bind (loopback or a unix socket).
    class SlowClients
      MODES = %w[headers upload read].freeze
      PIECE = 4
      PAUSE = 0.1

      def initialize(bind:, count:, duration:, mode: "headers")
        raise UsageError, "slow-clients mode must be one of #{MODES.join(", ")}" unless MODES.include?(mode)
        @bind = bind
        @count = count
        @mode = mode
        @deadline = Support::Clock.now + duration
        @threads = []
        @sent = 0
        @lock = Mutex.new
      end

      def start
        @threads = Array.new(@count) { Thread.new { hold } }
        self
      end

      def stop
        @deadline = Support::Clock.now
        @threads.each { |t| t.join(2) || t.kill }
        {"count" => @count, "mode" => @mode, "bytes_trickled" => @sent}
      end

      private

      def hold
        while Support::Clock.now < @deadline
          socket = @bind.connect
          socket.setsockopt(Socket::SOL_SOCKET, Socket::SO_RCVBUF, 4096) if @mode == "read"
          send(:"#{@mode}_dribble", socket)
          socket.close
        end
      rescue SystemCallError, IOError
        sleep PAUSE
        retry if Support::Clock.now < @deadline
      end

      def headers_dribble(socket)
        request = "GET /server HTTP/1.1\r\nHost: localhost\r\nUser-Agent: arena-slow-client\r\n" + ("X-Pad: #{"p" * 40}\r\n" * 50) + "\r\n"
        trickle(socket, request)
      end

      def upload_dribble(socket)
        socket.write("POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1048576\r\n\r\n")
        trickle(socket, "u" * 1_048_576)
      end

      def read_dribble(socket)
        socket.write("GET /body?kb=4096 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        while Support::Clock.now < @deadline
          break if socket.read_nonblock(PIECE * 256, exception: false).nil?
          sleep PAUSE
        end
      end

      def trickle(socket, bytes)
        offset = 0
        while offset < bytes.bytesize && Support::Clock.now < @deadline
          offset += socket.write(bytes.byteslice(offset, PIECE))
          @lock.synchronize { @sent += PIECE }
          sleep PAUSE
        end
      end
    end
  end
end
