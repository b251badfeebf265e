# frozen_string_literal: true

require "json"
require_relative "../support/quote"
require_relative "../system/bind"
require_relative "base"

module Arena
  module Servers
    # Thin: one EventMachine process. The app runs on the reactor thread
    # unless `threaded` hands each request to EventMachine's thread pool, so
    # by default one slow request holds up every other connection.
    #
    # `thin -s N` is not a cluster behind one socket: it starts N independent
    # (daemonized) servers on N ports, and something must spread the load over
    # them. Arena starts N foreground Thins itself (lib/arena/support/spawn_all.rb),
    # each on its own port or socket, and requires nginx round-robin in front
    # (`--front nginx`) rather than benchmarking only the first port.
    class Thin < Base
      server "thin", "evented (EventMachine), one process per port"
      tunable "servers", min: 1, max: ->(m) { 2 * m.server_cores }
      tune_start("a server per core (one reactor per process)") { |cores| {"servers" => cores} }
      # A Rack app's call blocks the reactor: one request at a time per
      # process, or EventMachine's thread pool (20 threads) when threaded.
      slots("a request at a time per process on its reactor, EventMachine's 20 threads when threaded") do |s|
        s["servers"].to_i * (s["threaded"] ? 20 : 1)
      end

      # Its servers are ports: tuning them needs nginx round-robin in front.
      def self.tune_needs_front? = true

      # `thin -C thin.yml start`: with servers > 1 Thin starts that many on
      # consecutive ports, which need a proxy in front (Arena measured it
      # behind nginx round-robin).
      def self.config_file(s, rackup:)
        text = <<~YAML
          # Found by `arena tune`; start with `thin -C thin.yml start` (several servers need a proxy in front).
          environment: production
          port: <%= ENV.fetch("PORT", 3000) %>
          servers: #{Integer(s["servers"])}
          rackup: #{Support::Quote.yaml(rackup, "rackup")}
          threaded: #{s["threaded"] || false}
        YAML
        ConfigFile.new(name: "thin.yml", text: text, command: ["bundle", "exec", "thin", "-C", "thin.yml", "start"])
      end

      def self.settings
        {"servers" => 1, "threaded" => false}
      end

      def self.allowed = {"servers" => 1..}

      SPAWN_ALL = File.expand_path("../support/spawn_all.rb", __dir__)

      def command(app:, bind:, dir:)
        instances = upstreams(bind).each_with_index.map { |b, i| instance(app, b, File.join(dir, "thin.#{i}.pid")) }
        return instances.first if instances.size == 1
        ["ruby", SPAWN_ALL, JSON.generate(instances)]
      end

      # The first instance takes the bind Arena chose; the others get free
      # ports (or sibling socket paths), fixed once per adapter.
      def upstreams(bind)
        return @upstreams if @upstreams&.first == bind
        @upstreams = [bind] + (1...ports).map do |i|
          bind.tcp? ? System::Bind.tcp(host: bind.host) : System::Bind.unix(bind.path.sub(/(\.sock)?\z/, ".#{i}.sock"))
        end
      end

      def ports = settings["servers"]

      def instance(app, bind, pid_file)
        listen = bind.tcp? ? ["-a", bind.host, "-p", bind.port.to_s] : ["-S", bind.path]
        argv = bundle_exec("thin", "start", "-R", app.rackup, "-e", "production", *listen, "-P", pid_file, "--tag", label)
        argv << "--threaded" if settings["threaded"]
        argv
      end

      # HUP restarts only a daemonized Thin, and by stopping before starting a
      # new process: no zero-downtime restart exists, so none is offered.
      def workers = settings["servers"]

      # threaded: EventMachine's thread pool (20 threads) runs the app.
      def request_threads = settings["threaded"] ? 20 : 1
    end
  end
end
