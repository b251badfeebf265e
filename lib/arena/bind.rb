# frozen_string_literal: true

require "socket"

module Arena
  # Where a server listens: a loopback TCP port or a unix socket path.
  Bind = Struct.new(:kind, :host, :port, :path, keyword_init: true) do
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

    # The target string the load engine takes.
    def target(path = "/")
      tcp? ? "http://#{host}:#{port}#{path}" : "unix:#{self.path}:#{path}"
    end

    # host:port, or the socket's path: what a server's listen option takes.
    def address = tcp? ? "#{host}:#{port}" : path

    # scheme://host:port, or unix://PATH: what servers that take a URL want.
    def uri(scheme) = tcp? ? "#{scheme}://#{address}" : "unix://#{path}"

    # host:port, or unix:PATH: what nginx's upstream and a person read.
    def to_s = tcp? ? address : "unix:#{path}"

    def connect
      tcp? ? Socket.tcp(host, port, connect_timeout: 1) : UNIXSocket.new(path)
    end

    def to_h
      tcp? ? {kind: "tcp", host: host, port: port} : {kind: "unix", path: path}
    end
  end
end
