# frozen_string_literal: true

require_relative "../core"
require_relative "front"

module Arena
  module Fronts
    # Debian's Caddy in front of the server, from a Caddyfile Arena writes into
    # the run directory: loopback only, no admin endpoint, no automatic HTTPS
    # (the run's own certificate for tls and h2; h2c by prior knowledge on a
    # plain listener). Its process is measured apart from the app server's.
    class Caddy < Front
      PATHS = ["/usr/bin/caddy", "/usr/local/bin/caddy"].freeze

      def self.binary = PATHS.find { |p| File.executable?(p) }

      def self.version
        IO.popen([binary, "version"], err: [:child, :out], &:read).to_s[/v?(\d+\.\d+\.\d+)/, 1] if binary
      end

      def self.transport_unsupported(_transport) = nil

      def initialize(**)
        raise Error, "caddy is not installed (apt-get install caddy)" unless self.class.binary
        super
      end

      def config_path = File.join(@dir, "Caddyfile")

      def to_h
        {"kind" => "caddy", "version" => self.class.version, "bind" => @bind.to_h, "transport" => @transport.name,
         "upstreams" => @upstreams.map(&:to_h), "config" => config_path}
      end

      def config
        upstreams = @upstreams.map { |u| u.unix? ? "unix/#{u.path}" : u.address }.join(" ")
        site = @bind.tls? ? "https://#{@bind.address}" : "http://#{@bind.address}"
        protocols = if @transport.name == "h2c" then "h1 h2c"
        elsif @bind.tls? then (@transport.h2? ? "h1 h2" : "h1")
        else "h1"
        end
        tls = @bind.tls? ? "\n  tls #{@bind.tls.chain} #{@bind.tls.key}" : ""
        <<~CADDY
          {
            admin off
            auto_https off
            servers {
              protocols #{protocols}
            }
            log {
              output file #{File.join(@dir, "caddy-error.log")}
              level ERROR
            }
          }
          #{site} {
            bind #{@bind.host}#{tls}
            reverse_proxy #{upstreams}
          }
        CADDY
      end

      private

      def prepare = File.write(config_path, config)

      def argv = [self.class.binary, "run", "--config", config_path, "--adapter", "caddyfile"]

      # HOME and XDG dirs inside the run: Caddy writes its state there, not in the user's home.
      def env = {"HOME" => @dir, "XDG_DATA_HOME" => File.join(@dir, "data"), "XDG_CONFIG_HOME" => File.join(@dir, "config")}

      def log_name = "caddy.log"
    end
  end
end
