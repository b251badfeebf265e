# frozen_string_literal: true

require_relative "../support/quote"
require_relative "base"

module Arena
  module Servers
    # Iodine: an evented C core (facil.io) calling the Rack app from a pool of
    # threads, in one or more forked workers under a master that respawns them.
    class Iodine < Base
      server "iodine", "evented C core, threads in forked workers"
      tunable "workers", min: 1, max: ->(m) { 2 * m.server_cores }
      tunable "threads", min: 1, max: 16
      tune_start("a worker per core, 4 threads (a guess: its docs give no rule)") { |cores| {"workers" => cores, "threads" => 4} }
      slots("workers x threads") { |s| [s["workers"].to_i, 1].max * s["threads"].to_i }

      def self.config_file(s, rackup:) = ConfigFile.script(key, ["bundle", "exec", "iodine", "-p", Support::Quote.port(default: 3000), "-w", s["workers"], "-t", s["threads"], rackup])

      def self.worker_setting = "workers"

      def self.settings
        {"workers" => ->(m) { m.default_workers }, "threads" => 4}
      end

      # A unix socket is "-b PATH" with port 0.
      def command(app:, bind:, dir:)
        listen = bind.tcp? ? ["-b", bind.host, "-p", bind.port.to_s] : ["-b", bind.path, "-p", "0"]
        tls = bind.tls? ? ["-tls-cert", bind.tls.cert, "-tls-key", bind.tls.key] : []
        bundle_exec("iodine", *listen, *tls, "-w", workers.to_s, "-t", settings["threads"].to_s, app.rackup)
      end

      # Iodine terminates TLS itself (-tls-cert/-tls-key: facil.io on OpenSSL); it speaks no HTTP/2.
      def transport_unsupported(transport)
        return nil if transport.plain? || transport.name == "tls"
        "Iodine speaks HTTP/1.1 only (TLS yes, HTTP/2 no): put a front before it for #{transport.name}"
      end

      def workers = settings["workers"]

      def accepting_workers = workers

      # SIGUSR1 makes the master stop and re-fork all its workers at once (a
      # hot restart of the processes; the app loaded in the master is not
      # reloaded). It is not zero-downtime: requests sent meanwhile fail.
      def restart_mechanisms = (workers > 0) ? [:hot] : []

      def restart(group, mechanism)
        return :unsupported unless restart_mechanisms.include?(mechanism)
        group.signal("USR1")
      end
    end
  end
end
