# frozen_string_literal: true

require_relative "../core"
require_relative "front"

module Arena
  module Fronts
    # Thruster (the `thruster` gem, Rails 8's default front) before the
    # server. Rails runs it as the parent of Puma (`thrust bin/rails server`);
    # here it wraps a placeholder that only waits, and proxies to the server
    # Arena started, so its CPU and memory are measured apart from the
    # server's tree, as nginx's are. Its TLS is Let's Encrypt only
    # (TLS_DOMAIN), so it serves plain HTTP/1.1 here.
    class Thruster < Front
      def self.binary
        spec = Gem::Specification.find_all_by_name("thruster").max_by(&:version)
        return nil unless spec
        exe = Dir[File.join(spec.gem_dir, "exe", "*", "thrust")].first
        exe if exe && File.executable?(exe)
      rescue Gem::LoadError
        nil
      end

      def self.version = Gem::Specification.find_all_by_name("thruster").max_by(&:version)&.version&.to_s

      def self.transport_unsupported(transport)
        return nil if transport.plain?
        "Thruster's TLS is Let's Encrypt only (TLS_DOMAIN, a public name) and it serves no h2c: it fronts plain HTTP/1.1 here"
      end

      def initialize(upstreams:, **)
        raise Error, "thruster is not installed (bundle install: the thruster gem)" unless self.class.binary
        raise Error, "thruster proxies to one TCP port (TARGET_PORT)" unless upstreams.size == 1 && upstreams.first.tcp?
        super
      end

      def to_h
        {"kind" => "thruster", "version" => self.class.version, "bind" => @bind.to_h, "transport" => @transport.name,
         "upstreams" => @upstreams.map(&:to_h)}
      end

      private

      # The wrapped command only waits: Thruster ends when it ends, and it ends when Thruster is stopped.
      def argv = [self.class.binary, "sleep", "infinity"]

      def env
        {"HTTP_PORT" => @bind.port.to_s, "TARGET_PORT" => @upstreams.first.port.to_s, "STORAGE_PATH" => File.join(@dir, "storage"),
         "HTTP_IDLE_TIMEOUT" => "60", "LOG_REQUESTS" => "false"}
      end

      def log_name = "thruster.log"
    end
  end
end
