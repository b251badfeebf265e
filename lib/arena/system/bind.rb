# frozen_string_literal: true

require "socket"
require "openssl"
require "io/wait"
require_relative "../support/clock"

module Arena
  module System
    # Where a server listens: a loopback TCP port or a unix socket path; with
    # `tls` (Launch::Certificates::Files, or :self_signed when the server makes its
    # own) it is reached over TLS: targets are https:// and probes handshake.
    Bind = Struct.new(:kind, :host, :port, :path, :tls, keyword_init: true) do
      def self.tcp(host: "127.0.0.1", port: nil)
        new(kind: :tcp, host: host, port: port || free_port(host)).freeze
      end

      def self.unix(path)
        new(kind: :unix, path: path).freeze
      end

      # The kernel picks the port; a tiny race with other programs remains, and a
      # taken port is reported by the server's own readiness failure.
      def self.free_port(host = "127.0.0.1")
        server = TCPServer.new(host, 0)
        server.addr[1]
      ensure
        server&.close
      end

      def tcp? = kind == :tcp

      def unix? = kind == :unix

      def tls? = !tls.nil?

      # The same address reached over TLS with these files (or :self_signed).
      def with_tls(files) = self.class.new(**to_a_h, tls: files).freeze

      # The run's CA when the server was handed the run's certificate.
      def ca = tls.respond_to?(:ca) ? tls.ca : nil

      # The target string the load engine takes.
      def target(path = "/")
        return "unix:#{self.path}:#{path}" unless tcp?
        "#{tls? ? "https" : "http"}://#{address}#{path}"
      end

      # host:port ([host]:port for IPv6), or the socket's path: what a
      # server's listen option takes.
      def address = tcp? ? "#{bracketed_host}:#{port}" : path

      def bracketed_host = host.include?(":") ? "[#{host}]" : host

      # scheme://host:port, or unix://PATH: what servers that take a URL want.
      def uri(scheme) = tcp? ? "#{scheme}://#{address}" : "unix://#{path}"

      # host:port, or unix:PATH: what nginx's upstream and a person read.
      def to_s = tcp? ? address : "unix:#{path}"

      # timeout: the longest a TLS handshake may wait on the server.
      def connect(timeout: 5)
        socket = tcp? ? Socket.tcp(host, port, connect_timeout: 1) : UNIXSocket.new(path)
        tls? ? tls_socket(socket, timeout) : socket
      end

      def to_h
        h = tcp? ? {kind: "tcp", host: host, port: port} : {kind: "unix", path: path}
        tls? ? h.merge(tls: true) : h
      end

      private

      def to_a_h = {kind: kind, host: host, port: port, path: path}

      # Probes speak HTTP/1.1 over TLS (ALPN http/1.1, which every h2 server
      # also offers) and verify against the run's CA when the server has its
      # certificate.
      def tls_socket(socket, timeout)
        ctx = OpenSSL::SSL::SSLContext.new
        ctx.alpn_protocols = ["http/1.1"]
        if ca
          ctx.verify_mode = OpenSSL::SSL::VERIFY_PEER
          ctx.ca_file = ca
        else
          ctx.verify_mode = OpenSSL::SSL::VERIFY_NONE
        end
        ssl = OpenSSL::SSL::SSLSocket.new(socket, ctx)
        ssl.sync_close = true
        handshake(ssl, socket, timeout)
        ssl
      rescue OpenSSL::SSL::SSLError, IOError => e
        socket.close
        raise IOError, "TLS handshake failed: #{e.message}"
      end

      # A server that accepts and then says nothing would hold a blocking
      # handshake for ever: each wait is bounded by the deadline. A step is
      # the socket, or the wait it needs (:wait_readable, :wait_writable:
      # the names of IO's own waits).
      def handshake(ssl, socket, timeout)
        deadline = Support::Clock.now + timeout
        until (step = ssl.connect_nonblock(exception: false)) == ssl
          left = deadline - Support::Clock.now
          raise IOError, "no answer within #{timeout}s" unless left.positive? && socket.public_send(step, left)
        end
      end
    end
  end
end
