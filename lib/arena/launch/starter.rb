# frozen_string_literal: true

require "fileutils"
require "tmpdir"
require_relative "../core"
require_relative "../fronts/fronts"
require_relative "../probes/queue_time"
require_relative "../system/bind"
require_relative "../verify/transport_check"
require_relative "certificates"
require_relative "local_server"
require_relative "starter_contract"

module Arena
  module Launch
    # Brings server configs up for the Runner and owns what it brought up: the
    # current server and the proxy in front, so one `stop` (or `cleanup` at the
    # end of a run) takes everything down, whatever failed in between. After a
    # crash or restart scenario `restart` replaces the server with the same
    # config on a fresh port (unless --port pinned one: then on the same
    # address once the old listener is gone), and points nginx, on its own
    # unchanged address, at the new server. The local side of Launch::StarterContract.
    class Starter
      attr_reader :server, :front

      def initialize(plan:)
        @plan = plan
      end

      # Raises Launch::LocalServer::Failed (with the log tail) or Error (the proxy).
      def start(adapter, dir)
        @server = new_server(adapter, server_bind(adapter, dir), dir).start
        @front = start_front(adapter, dir) if @plan.front
        check_transport(adapter)
        @server
      end

      def transport = @plan.transport_or_plain

      # What the first client negotiated (Verify::TransportCheck::Outcome).
      attr_reader :negotiated

      def restart(old)
        old.stop
        @server = old.successor(keep_port: !@plan.port.nil?).start
        @front&.retarget(old.adapter.upstreams(@server.bind))
        @server
      end

      # A second Ctrl-C during nginx's stop must not skip the server's.
      def stop
        Launch::StarterContract.stop_both(@front, @server)
        @front = @server = nil
      end

      def cleanup
        stop
        FileUtils.rm_rf(@socket_dir) if @socket_dir
      end

      private

      def new_server(adapter, bind, dir)
        Launch::LocalServer.new(adapter: adapter, app: @plan.app, bind: bind, dir: dir, machine: @plan.machine,
          ready_timeout: @plan.ready_timeout, env: @plan.env || {}, queue_time: Probes::QueueTime.every(@plan.load.queue_time) || false)
      end

      def start_front(adapter, dir)
        Fronts.build(@plan.front, upstreams: adapter.upstreams(@server.bind), dir: dir, machine: @plan.machine,
          transport: transport, certs: transport.tls? ? certificates : nil).start
      rescue Error => e
        raise Error, "#{adapter.label}: #{@plan.front} in front failed: #{e.message}"
      end

      def check_transport(adapter)
        entry = @front ? @front.bind : @server.bind
        @negotiated = Verify::TransportCheck.new(transport: transport).call(entry)
        raise Error, "#{adapter.label} over #{transport.name}: #{@negotiated.problem}" unless @negotiated.ok?
      end

      # The server itself serves TLS when no front does: with the run's
      # certificate, or its own when it cannot be handed one.
      def server_bind(adapter, dir)
        bind = bind_for(dir)
        return bind unless transport.tls? && !@plan.front
        bind.with_tls(adapter.own_certificate? ? :self_signed : certificates)
      end

      # One throwaway CA and leaf per run (lib/arena/launch/certificates.rb).
      def certificates
        @certificates ||= Launch::Certificates.for_run(dir: File.join(@plan.out_dir, "tls"))
      end

      # Unix socket paths are limited to 107 bytes, so sockets live in a short
      # temporary directory of their own, removed at the end of the run.
      def bind_for(dir)
        if @plan.bind == "unix"
          @socket_dir ||= Dir.mktmpdir("arena-")
          return System::Bind.unix(File.join(@socket_dir, "#{File.basename(dir)[0, 2]}.sock"))
        end
        @plan.port ? System::Bind.tcp(port: @plan.port) : System::Bind.tcp
      end
    end
  end
end
