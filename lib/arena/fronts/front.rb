# frozen_string_literal: true

require "fileutils"
require_relative "../core"
require_relative "../load/transport"
require_relative "../plan/machine"
require_relative "../probes/sampler"
require_relative "../support/clock"
require_relative "../system/bind"
require_relative "../system/process_group"
require_relative "../verify/http_probe"

module Arena
  module Fronts
    # What a front started as one process group has in common (Caddy,
    # Thruster): its place, its start and stop, its samples taken apart from
    # the server's tree. A subclass says how it runs: `argv`, `env` and
    # `log_name`, and writes its own config in `prepare` if it has one.
    # Neither has a live reload here, so a new upstream is a restart on the
    # same address.
    class Front
      attr_reader :bind, :group, :dir

      def initialize(upstreams:, dir:, machine: Plan::Machine.current, bind: System::Bind.tcp, transport: Load::Transport.plain)
        @upstreams = upstreams
        @dir = dir
        @machine = machine
        @bind = bind
        @transport = transport
      end

      def start(ready_timeout: 10)
        ready = false
        FileUtils.mkdir_p(@dir)
        prepare
        @group = System::ProcessGroup.new(argv, log_path: File.join(@dir, log_name), env: env, cpus: @machine.server_cpus)
        @group.start
        wait_ready(ready_timeout)
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

      # Sampled apart from the server (Launch::ServerContract#sampler), as nginx is.
      def sampler(interval: 0.2, per_process: false) = Probes::Sampler.new(pids: -> { pids }, interval: interval, per_process: per_process)

      private

      def prepare = nil

      def env = {}

      # A front is ready when a GET through it is answered.
      def wait_ready(timeout)
        exited = nil
        failure = Verify::HttpProbe.new(bind, timeout: 2).await("/", deadline: Support::Clock.now + timeout) { exited = group.exited }
        return unless failure
        tail = group.log_tail(3).join(" ")
        raise Error, "#{self.class.name.split("::").last.downcase} exited at start: #{tail}" if exited
        raise Error, "#{self.class.name.split("::").last.downcase} not ready after #{timeout}s (#{failure})"
      end
    end
  end
end
