# frozen_string_literal: true

module Arena
  module Servers
    # Thin: one EventMachine process. The app runs on the reactor thread
    # unless `threaded` hands each request to EventMachine's thread pool, so
    # by default one slow request holds up every other connection.
    #
    # `thin -s N` is not a cluster behind one socket: it starts N independent
    # servers on ports P..P+N-1 (or sockets path.0..path.N-1), and something
    # must spread the load over them. Arena's answer is nginx round-robin in
    # front (lib/arena/proxy/nginx.rb, a separate issue); until that exists,
    # servers > 1 is refused rather than benchmarking only the first port.
    class Thin < Base
      server "thin", "evented (EventMachine), one process per port"

      def self.settings
        {"servers" => 1, "threaded" => false}
      end

      def initialize(**)
        super
        raise UsageError, "thin:servers>1 needs --front nginx" if settings["servers"] > 1
        raise UsageError, "thin: servers must be at least 1" if settings["servers"].zero?
      end

      def command(app:, bind:, dir:)
        listen = bind.tcp? ? ["-a", bind.host, "-p", bind.port.to_s] : ["-S", bind.path]
        argv = bundle_exec("thin", "start", "-R", app.rackup, "-e", "production", *listen,
          "-P", File.join(dir, "thin.pid"), "--tag", label)
        argv << "--threaded" if settings["threaded"]
        argv
      end

      # HUP restarts only a daemonized Thin, and by stopping before starting a
      # new process: no zero-downtime restart exists, so none is offered.
      def workers = settings["servers"]
    end
  end
end
