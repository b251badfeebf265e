# frozen_string_literal: true

require "fileutils"

module Arena
  module Servers
    # Agoo: an evented C core calling the Rack app from a pool of Ruby
    # threads. With workers > 1 the first process forks workers - 1 copies of
    # itself that share the socket and serves too, but it does not respawn a
    # copy that dies: a killed worker is capacity lost for the rest of the run
    # (a finding).
    #
    # Agoo collects an enumerable body and sends it with a Content-Length
    # once complete: it does not stream, so the /stream workload fails its
    # verification (expected chunked).
    class Agoo < Base
      server "agoo", "evented C core, Ruby threads, forked copies without respawn"
      tunable "workers", min: 1, max: ->(m) { 2 * m.server_cores }
      tunable "threads", min: 1, max: 16

      def self.worker_setting = "workers"

      def self.settings
        {"workers" => ->(m) { m.default_workers }, "threads" => 4}
      end

      def self.allowed = {"workers" => 1.., "threads" => 1..}

      # Agoo serves static files from its root (default: the working dir,
      # here the app's dir) for any path the app does not match; an empty
      # dir keeps every request on the app.
      def command(app:, bind:, dir:)
        root = File.join(dir, "agoo-public")
        FileUtils.mkdir_p(root)
        url = bind.uri("http")
        bundle_exec("agoo", "-b", url, "-w", workers.to_s, "-t", settings["threads"].to_s, "-d", root,
          "--no-log-colorize", app.rackup)
      end

      def workers = settings["workers"]

      # A dead copy stays a zombie child (nobody reaps it): not a worker.
      def worker_pids(group)
        super.reject { |pid| Procfs.stat(pid)&.state == "Z" }
      end
    end
  end
end
