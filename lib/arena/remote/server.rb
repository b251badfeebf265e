# frozen_string_literal: true

require_relative "../core"
require_relative "../launch/local_server"
require_relative "../launch/server_contract"
require_relative "../launch/starter_contract"
require_relative "../results/measurement"
require_relative "../system/bind"
require_relative "channel"

module Arena
  module Remote
    # What the agent started and a handle names (a server, its nginx): stopped,
    # asked for its pids and sampled through the agent. Its pids are the server
    # host's: nothing here may read them in /proc.
    module Handled
      def stop
        return unless @handle
        @channel.request("stop", timeout: 60, handle: @handle) unless @channel.closed?
        @handle = nil
      end

      def pids = call("pids")["pids"]

      def local_pids = []

      def call(op, **fields) = @channel.request(op, handle: @handle, **fields)

      def sampler(interval: 0.2, per_process: false) = Sampler.new(self, interval, per_process)
    end

    # A server config running on the server host through its agent: the
    # Launch::ServerContract interface (running_server.rb), as a local Launch::LocalServer. The
    # whole Launch::Spec goes to the agent (runtime and --env with it); worker
    # pids, memory and samples are read there (a remote pid means nothing in
    # this host's /proc); a worker is killed and a restart signalled there,
    # by the same adapter code.
    class Server
      include Handled

      attr_reader :adapter, :bind, :dir, :argv, :boot_s, :boot_retry, :remote_pid, :handle, :launch

      # No envelope on a server host: the plan refuses --envelope with --server-host.
      def cgroup = nil

      def timing = nil

      def initialize(channel:, adapter:, app:, bind:, dir:, ready_timeout:, env: {})
        @channel = channel
        @adapter = adapter
        @app = app
        @launch = Launch::Spec.of(adapter: adapter, app: app, env: env)
        @bind = bind
        @dir = dir
        @ready_timeout = ready_timeout || adapter.ready_timeout
      end

      def start
        reply = @channel.request("start", timeout: @ready_timeout + 120, launch: @launch.to_wire,
          host: @bind.host, port: @bind.port, ready_timeout: @ready_timeout)
        @handle = reply["handle"]
        @argv = reply["argv"]
        @boot_s = reply["boot_s"]
        @boot_retry = reply["boot_retry"]
        @remote_pid = reply["pid"]
        self
      rescue Channel::Refused => e
        raise Launch::LocalServer::Failed.new(e.message, log_tail: e.log_tail)
      end

      def worker_pids = call("worker_pids")["pids"]

      def memory(pids) = call("memory", pids: pids)["processes"]

      def kill_worker = call("kill_worker")["victim"]

      # true (signalled), false (gone) or a Symbol (:unsupported), as Launch::LocalServer's.
      def restart(mechanism) = call("restart", mechanism: mechanism.to_s)["outcome"].then { |o| o.is_a?(String) ? o.to_sym : o }

      # The log stays on the server host (the agent's reply to a failed start carries its tail).
      def log_tail(_lines = 20) = []

      def crash_line = nil

      # Its log stays on the server host.
      def log_size = 0

      def log_since(_offset) = ""

      def to_h
        {label: @adapter.label, argv: @argv, bind: @bind.to_h, boot_s: @boot_s, host: @channel.host.to_s}
      end
    end

    # nginx in front of a Server, on the server host (Proxy::Nginx run by the
    # agent), listening on that host's address.
    class Front
      include Handled

      attr_reader :bind

      def initialize(channel:, server:, bind:)
        @channel = channel
        @server = server
        @bind = bind
      end

      def start
        reply = @channel.request("front", timeout: 60, handle: @server.handle, host: @bind.host, port: @bind.port)
        @handle = reply["handle"]
        @record = reply["front"]
        self
      end

      def to_h = @record.merge("host" => @channel.host.to_s)
    end

    # Probes::Sampler's interface, sampled on the server host.
    class Sampler
      def initialize(server, interval, per_process)
        @server = server
        @interval = interval
        @per_process = per_process
      end

      def start
        @server.call("probe_start", interval: @interval, per_process: @per_process)
        self
      end

      # -> Results::Memory, as the agent's Probes::Sampler gave it (its record).
      def stop = Results::Memory.from_h(@server.call("probe_stop")["summary"])
    end

    # The Runner's server starter for --server-host: servers start on that
    # host, bound to its address on a port it picks there. The remote side of
    # Launch::StarterContract: nginx the only front, plain HTTP/1.1 the only
    # transport (Options#check refuses the others at plan time).
    class Starter
      attr_reader :server, :front

      def initialize(plan:, channel:, address:)
        @plan = plan
        @channel = channel
        @address = address
      end

      def start(adapter, dir)
        @server = new_server(adapter, dir).start
        @front = start_front(adapter) if @plan.front
        @server
      end

      # With nginx in front the new server takes the old one's port (nginx's
      # upstream); otherwise a fresh port, as a local run does.
      def restart(old)
        old.stop
        @server = new_server(old.adapter, old.dir, port: @front && old.bind.port).start
      end

      # A second Ctrl-C during nginx's stop must not skip the server's.
      def stop
        Launch::StarterContract.stop_both(@front, @server)
        @front = @server = nil
      end

      def cleanup = stop

      private

      def start_front(adapter)
        Front.new(channel: @channel, server: @server, bind: System::Bind.new(kind: :tcp, host: @address, port: free_port).freeze).start
      rescue Error => e
        raise Error, "#{adapter.label}: nginx in front failed: #{e.message}"
      end

      def free_port = @channel.request("free_port", host: @address)["port"]

      def new_server(adapter, dir, port: nil)
        port ||= @plan.port || free_port
        Server.new(channel: @channel, adapter: adapter, app: @plan.app, dir: dir, ready_timeout: @plan.ready_timeout, env: @plan.env || {},
          bind: System::Bind.new(kind: :tcp, host: @address, port: port).freeze)
      end
    end
  end
end
