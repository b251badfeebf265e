# frozen_string_literal: true

require_relative "../core"
require_relative "host"

module Arena
  module Remote
    # The flags of a distributed run. Kept apart from the plan: they say where
    # processes run, not what is measured.
    class Options
      attr_reader :server_host, :loader_hosts

      def initialize
        @loader_hosts = []
      end

      def define(parser)
        parser.on("--server-host URL", "run the servers on this host over SSH: ssh://[user@]host[:port]") { |v| @server_host = Host.parse(v) }
        parser.on("--loader-hosts LIST", Array, "run arena-load on these hosts over SSH (ssh://a,ssh://b); histograms merged exactly") do |v|
          @loader_hosts = v.map { |url| Host.parse(url) }
        end
        parser.on("--ssh-identity FILE", "private key for the hosts (ssh -i)") { |v| @identity = v }
        parser.on("--ssh-known-hosts FILE", "known_hosts for the hosts (strict host key checking)") { |v| @known_hosts = v }
        parser.on("--remote-arena CMD", "how the hosts start arena (default: this ruby and this checkout's exe/arena)") { |v| @command = v }
      end

      def any? = !@server_host.nil? || !@loader_hosts.empty?

      # Checks against the plan, before anything starts.
      def check(plan)
        return unless any?
        raise UsageError, "--loader-hosts needs --server-host (loaders cannot reach this host's loopback)" if @server_host.nil?
        raise UsageError, "--server-host serves over TCP: not with --bind unix" if plan.bind == "unix"
        raise UsageError, "--loader-hosts: the same host twice" if @loader_hosts.map(&:url).uniq.size < @loader_hosts.size
        # The agent runs nginx in front and no TLS or HTTP/2 (Launch::StarterContract).
        raise UsageError, "--server-host puts nginx in front only: not --front #{plan.front}" if plan.front && plan.front != "nginx"
        raise UsageError, "--server-host serves plain HTTP/1.1 only: not --transport #{plan.transport.name}" unless plan.transport_or_plain.plain?
        ssh
      end

      # Checks the key and known_hosts files exist.
      def ssh = @ssh ||= Ssh.new(identity: @identity, known_hosts: @known_hosts, command: @command)
    end
  end
end
