# frozen_string_literal: true

require_relative "../plan/machine"
require_relative "channel"
require_relative "engines"
require_relative "host"
require_relative "server"

module Arena
  module Remote
    # The agents of one distributed run: opened (version checked) before the
    # first server starts, closed at the end, which stops whatever they
    # started. Hands the Runner its server starter and engine.
    class Session
      attr_reader :server_channel, :loader_channels

      def initialize(options:, plan:, err:)
        @options = options
        @plan = plan
        @err = err
        @loader_channels = []
      end

      # The run's first line says which address the engine may load.
      def open
        host = @options.server_host
        @err.puts "distributed: servers on #{host} (#{host.address}); the load engine may target #{host.address} " \
          "only (--allow-remote for that address); load from #{loader_names}"
        ssh = @options.ssh
        dir = File.join(@plan.out_dir, "remote")
        FileUtils.mkdir_p(dir)
        app_dir = @plan.app.builtin ? nil : @plan.app.dir
        @server_channel = Channel.new(host: host, ssh: ssh, log_path: File.join(dir, "server-host.log")).open(app_dir: app_dir)
        @options.loader_hosts.each_with_index do |h, i|
          @loader_channels << Channel.new(host: h, ssh: ssh, log_path: File.join(dir, "loader-#{i + 1}.log"))
            .open(load_target: host.address)
        end
        self
      rescue Error
        close
        raise
      end

      def starter = Remote::Starter.new(plan: @plan, channel: @server_channel, address: @options.server_host.address)

      # The Runner's collaborators for this run: its engine, and a starter
      # for each server start (several stay up at once under --between-rounds
      # keep: the agent holds any number).
      def runner_options = {engine: engine, new_starter: -> { starter }}

      def engine
        address = @options.server_host.address
        if @loader_channels.empty?
          # No server runs here: the engine is not confined to one core.
          ServerHostEngine.new(allow: address, dir: @plan.out_dir, machine: Plan::Machine.new(cores: @plan.machine.cores, shared: true).freeze)
        else
          LoaderFleet.new(channels: @loader_channels, allow: address, dir: @plan.out_dir)
        end
      end

      # Both sides of the run, as a reader must judge it.
      def environment(local)
        local.merge(
          "server_host" => host_record(@server_channel),
          "loader_hosts" => @loader_channels.map { |ch| host_record(ch) },
          "load_from" => @loader_channels.empty? ? "this host" : "loader hosts"
        )
      end

      def close
        [@server_channel, *@loader_channels].compact.each(&:close)
      end

      private

      def loader_names = @options.loader_hosts.empty? ? "this host" : @options.loader_hosts.join(", ")

      def host_record(channel)
        {"url" => channel.host.to_s, "address" => channel.host.address, "hostname" => channel.hello["host"],
         "environment" => channel.hello["environment"]}
      end
    end
  end
end
