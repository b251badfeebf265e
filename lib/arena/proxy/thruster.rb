# frozen_string_literal: true

require "fileutils"

module Arena
  module Proxy
    # Thruster (the `thruster` gem, Rails 8's default front) before the
    # server. Rails runs it as the parent of Puma (`thrust bin/rails server`);
    # here it wraps a placeholder that only waits, and proxies to the server
    # Arena started, so its CPU and memory are measured apart from the
    # server's tree, as nginx's are. Its TLS is Let's Encrypt only
    # (TLS_DOMAIN), so it serves plain HTTP/1.1 here.
    class Thruster
      attr_reader :bind, :group, :dir

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

      def initialize(upstreams:, dir:, machine: Machine.current, bind: Bind.tcp, transport: Transport.plain)
        raise Error, "thruster is not installed (bundle install: the thruster gem)" unless self.class.binary
        raise Error, "thruster proxies to one TCP port (TARGET_PORT)" unless upstreams.size == 1 && upstreams.first.tcp?
        @upstreams = upstreams
        @dir = dir
        @machine = machine
        @bind = bind
        @transport = transport
      end

      def start(ready_timeout: 10)
        ready = false
        FileUtils.mkdir_p(@dir)
        upstream = @upstreams.first
        env = {"HTTP_PORT" => @bind.port.to_s, "TARGET_PORT" => upstream.port.to_s, "STORAGE_PATH" => File.join(@dir, "storage"),
               "HTTP_IDLE_TIMEOUT" => "60", "LOG_REQUESTS" => "false"}
        # The wrapped command only waits: Thruster ends when it ends, and it ends when Thruster is stopped.
        @group = ProcessGroup.new([self.class.binary, "sleep", "infinity"], log_path: File.join(@dir, "thruster.log"),
          env: env, cpus: @machine.server_cpus)
        @group.start
        Fronts.wait_ready(self, ready_timeout)
        ready = true
        self
      ensure
        stop unless ready
      end

      def stop = @group&.stop

      def retarget(upstreams, timeout: 10)
        @upstreams = upstreams
        stop
        start(ready_timeout: timeout)
      end

      def pids = @group ? @group.tree : []

      # Sampled apart from the server (RunningServer#sampler), as nginx is.
      def sampler(interval: 0.2, per_process: false) = Probes::Sampler.new(pids: -> { pids }, interval: interval, per_process: per_process)

      def to_h
        {"kind" => "thruster", "version" => self.class.version, "bind" => @bind.to_h, "transport" => @transport.name,
         "upstreams" => @upstreams.map(&:to_h)}
      end
    end
  end
end
