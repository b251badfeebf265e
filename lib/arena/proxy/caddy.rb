# frozen_string_literal: true

require "fileutils"

module Arena
  module Proxy
    # Debian's Caddy in front of the server, from a Caddyfile Arena writes into
    # the run directory: loopback only, no admin endpoint, no automatic HTTPS
    # (the run's own certificate for tls and h2; h2c by prior knowledge on a
    # plain listener). Its process is measured apart from the app server's.
    class Caddy
      PATHS = ["/usr/bin/caddy", "/usr/local/bin/caddy"].freeze

      attr_reader :bind, :group, :dir

      def self.binary = PATHS.find { |p| File.executable?(p) }

      def self.version
        IO.popen([binary, "version"], err: [:child, :out], &:read).to_s[/v?(\d+\.\d+\.\d+)/, 1] if binary
      end

      def self.transport_unsupported(_transport) = nil

      def initialize(upstreams:, dir:, machine: Machine.current, bind: Bind.tcp, transport: Transport.plain)
        raise Error, "caddy is not installed (apt-get install caddy)" unless self.class.binary
        @upstreams = upstreams
        @dir = dir
        @machine = machine
        @bind = bind
        @transport = transport
      end

      def start(ready_timeout: 10)
        ready = false
        FileUtils.mkdir_p(@dir)
        File.write(config_path, config)
        # HOME and XDG dirs inside the run: Caddy writes its state there, not in the user's home.
        env = {"HOME" => @dir, "XDG_DATA_HOME" => File.join(@dir, "data"), "XDG_CONFIG_HOME" => File.join(@dir, "config")}
        @group = ProcessGroup.new([self.class.binary, "run", "--config", config_path, "--adapter", "caddyfile"],
          log_path: File.join(@dir, "caddy.log"), env: env, cpus: @machine.server_cpus)
        @group.start
        Fronts.wait_ready(self, ready_timeout)
        ready = true
        self
      ensure
        stop unless ready
      end

      def stop = @group&.stop

      # Caddy's admin endpoint is off (no second listener): a new upstream is
      # a restart on the same address.
      def retarget(upstreams, timeout: 10)
        @upstreams = upstreams
        stop
        start(ready_timeout: timeout)
      end

      def pids = @group ? @group.tree : []

      # Sampled apart from the server (RunningServer#sampler), as nginx is.
      def sampler(interval: 0.2, per_process: false) = Probes::Sampler.new(pids: -> { pids }, interval: interval, per_process: per_process)

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
    end
  end
end
