# frozen_string_literal: true

require_relative "../core"
require_relative "../support/clock"
require_relative "../support/quote"
require_relative "../verify/http_probe"
require_relative "front"

module Arena
  module Fronts
    # Debian's nginx in front of the server, from a config Arena writes into the
    # run directory: loopback only, upstream keep-alive, buffering on (which is
    # what protects one-request-per-worker servers from slow clients). Its own
    # processes are measured apart from the app server's.
    class Nginx < Front
      PATHS = ["/usr/sbin/nginx", "/usr/bin/nginx"].freeze

      def self.binary = PATHS.find { |p| File.executable?(p) }

      def self.version
        IO.popen([binary, "-v"], err: [:child, :out], &:read).to_s[%r{nginx/([\d.]+)}, 1] if binary
      end

      # transport: nginx terminates TLS (the bind's certificate) and HTTP/2
      # over TLS; upstreams stay plain HTTP/1.1, as deployed.
      def initialize(**)
        raise Error, "nginx is not installed (apt-get install nginx-light)" unless self.class.binary
        super
      end

      # nginx 1.22 serves h2c on a port only without HTTP/1.1 beside it, so
      # neither readiness nor verification could reach it.
      def self.transport_unsupported(transport)
        "nginx #{version} serves h2c only on a port without HTTP/1.1 (no probe could verify it)" if transport.name == "h2c"
      end

      # After the server behind it started afresh on new addresses (a crash
      # or restart scenario: the old port may be held for a minute by its
      # closed connections): the same nginx on the same address, pointed at
      # the new upstreams. HUP makes the master re-read its config and
      # replace its workers; returns once the old workers are gone.
      def retarget(upstreams, timeout: 10)
        @upstreams = upstreams
        File.write(config_path, config)
        old = workers
        @group.signal("HUP")
        deadline = Support::Clock.now + timeout
        until (workers & old).empty? && workers.any?
          raise Error, "nginx did not reload within #{timeout}s: #{@group.log_tail(3).join(" ")}" if Support::Clock.now > deadline
          sleep 0.02
        end
        self
      end

      def config_path = File.join(@dir, "nginx.conf")

      # Where nginx spools each kind of body: the run directory's temp/.
      TEMP_PATHS = {"client_body" => "body", "proxy" => "proxy", "fastcgi" => "fastcgi", "uwsgi" => "uwsgi", "scgi" => "scgi"}.freeze

      # Upstream keep-alive (HTTP/1.1 with no Connection header) and buffering
      # both ways, as deployed.
      LOCATION = <<~NGINX.gsub(/^/, "    ").chomp
        location / {
          proxy_pass http://app;
          proxy_http_version 1.1;
          proxy_set_header Connection "";
          proxy_set_header Host $host;
          proxy_set_header X-Forwarded-For $remote_addr;
          proxy_buffering on;
          proxy_request_buffering on;
        }
      NGINX

      def to_h
        {"kind" => "nginx", "version" => self.class.version, "bind" => @bind.to_h, "transport" => @transport.name,
         "upstreams" => @upstreams.map(&:to_h), "config" => config_path}
      end

      def config
        <<~NGINX
          #{"user root;" if Process.uid.zero?}
          worker_processes 1;
          pid #{quoted(File.join(@dir, "nginx.pid"))};
          error_log #{quoted(File.join(@dir, "nginx-error.log"))} warn;
          events { worker_connections 8192; }
          http {
            access_log off;
          #{temp_paths}
            upstream app {
          #{upstream_servers}
              keepalive 64;
            }
            server {
              listen #{quoted(@bind.address)}#{listen_options};
          #{tls_lines}
          #{LOCATION}
            }
          }
        NGINX
      end

      private

      # Every path and address is an nginx string (Quote.nginx): a space or
      # a ; in a directory name cannot end a directive.
      def quoted(value) = Support::Quote.nginx(value, "nginx.conf value")

      def temp_paths
        temp = File.join(@dir, "temp")
        TEMP_PATHS.map { |directive, dir| "  #{directive}_temp_path #{quoted("#{temp}/#{dir}")};" }.join("\n")
      end

      # max_fails=0: a kept-alive upstream connection the server closed just
      # as nginx reused it (Thin does at its persistent-connection limit) is
      # retried on the next upstream; nginx's default would instead take that
      # upstream out for 10 s, and after a few such races every upstream,
      # answering 502 for what is nginx's own circuit breaker.
      def upstream_servers = @upstreams.map { |u| "    server #{quoted(u.to_s)} max_fails=0;" }.join("\n")

      def listen_options
        return "" unless @bind.tls?
        @transport.h2? ? " ssl http2" : " ssl"
      end

      def tls_lines
        return "" unless @bind.tls?
        "    ssl_certificate #{Support::Quote.nginx(@bind.tls.chain)};\n    ssl_certificate_key #{Support::Quote.nginx(@bind.tls.key)};\n" \
          "    ssl_protocols TLSv1.2 TLSv1.3;"
      end

      def workers = @group.tree - [@group.pid]

      def prepare
        FileUtils.mkdir_p(File.join(@dir, "temp"))
        File.write(config_path, config)
      end

      def argv = [self.class.binary, "-p", @dir, "-c", config_path, "-g", "daemon off;"]

      def log_name = "nginx.log"

      def wait_ready(timeout)
        exited = nil
        failure = Verify::HttpProbe.new(@bind, timeout: 2).await("/", deadline: Support::Clock.now + timeout) { exited = @group.exited }
        return unless failure
        raise Error, "nginx exited at start: #{@group.log_tail(3).join(" ")}" if exited
        raise Error, "nginx not ready after #{timeout}s (#{failure})"
      end
    end
  end
end
