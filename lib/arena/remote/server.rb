# frozen_string_literal: true

require "delegate"

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

      def remote? = true

      def call(op, **fields) = @channel.request(op, handle: @handle, **fields)

      def sampler(interval: 0.2) = Sampler.new(self, interval)
    end

    # A server config running on the server host through its agent. It
    # answers what the runner and the scenarios ask of a ServerRun: bind,
    # adapter, pids, group, start, stop, and a sampler whose samples are taken
    # there (a remote pid means nothing in this host's /proc).
    class Server
      include Handled

      attr_reader :adapter, :bind, :dir, :argv, :boot_s, :group, :remote_pid, :handle

      def initialize(channel:, adapter:, app:, bind:, dir:, ready_timeout:)
        @channel = channel
        @adapter = RemoteAdapter.new(adapter, self)
        @app = app
        @bind = bind
        @dir = dir
        @ready_timeout = ready_timeout || adapter.ready_timeout
        @group = Group.new(self)
      end

      def start
        reply = @channel.request("start", timeout: @ready_timeout + 120, server: @adapter.key,
          settings: @adapter.settings, rackup: @app.builtin ? nil : @app.rackup, host: @bind.host,
          port: @bind.port, ready_timeout: @ready_timeout)
        @handle = reply["handle"]
        @argv = reply["argv"]
        @boot_s = reply["boot_s"]
        @remote_pid = reply["pid"]
        self
      rescue Channel::Refused => e
        raise ServerRun::Failed.new(e.message, log_tail: e.log_tail)
      end

      def to_h
        {label: @adapter.label, argv: @argv, bind: @bind.to_h, boot_s: @boot_s, host: @channel.host.to_s}
      end
    end

    # The adapter as scenarios see it: killing a worker and restarting happen
    # on the server host, by the same adapter code, through the agent.
    class RemoteAdapter < SimpleDelegator
      def initialize(adapter, server)
        super(adapter)
        @server = server
      end

      def kill_worker(_group) = @server.call("kill_worker")["victim"]

      def restart(_group, mechanism) = @server.call("restart", mechanism: mechanism.to_s)["outcome"].to_sym
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

    # What callers use of a ProcessGroup, for a group on the server host.
    class Group
      def initialize(server) = @server = server

      def pid = @server.remote_pid

      def tree = @server.pids

      def signal(sig, _pids = nil) = @server.call("signal", signal: sig.to_s)["sent"]

      def alive? = !tree.empty?

      def exited = nil

      def log_tail(_lines = 20) = []
    end

    # Probes::Sampler's interface, sampled on the server host.
    class Sampler
      def initialize(server, interval)
        @server = server
        @interval = interval
      end

      def start
        @server.call("probe_start", interval: @interval)
        self
      end

      def stop
        summary = @server.call("probe_stop")["summary"].transform_keys(&:to_sym)
        Probes::Summary.new(**summary.slice(*Probes::Summary.members))
      end
    end

    # The Runner's server starter for --server-host: servers start on that
    # host, bound to its address on a port it picks there.
    class ServerStarter
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
        @server = new_server(old.adapter.__getobj__, old.dir, port: @front && old.bind.port).start
      end

      def stop
        @front&.stop
        @server&.stop
        @front = @server = nil
      end

      def cleanup = stop

      private

      def start_front(adapter)
        Front.new(channel: @channel, server: @server, bind: Bind.new(kind: :tcp, host: @address, port: free_port).freeze).start
      rescue Error => e
        raise Error, "#{adapter.label}: nginx in front failed: #{e.message}"
      end

      def free_port = @channel.request("free_port", host: @address)["port"]

      def new_server(adapter, dir, port: nil)
        port ||= @plan.port || free_port
        Server.new(channel: @channel, adapter: adapter, app: @plan.app, dir: dir, ready_timeout: @plan.ready_timeout,
          bind: Bind.new(kind: :tcp, host: @address, port: port).freeze)
      end
    end
  end
end
