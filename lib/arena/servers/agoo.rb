# frozen_string_literal: true

require "fileutils"
require_relative "../support/quote"
require_relative "../system/procfs"
require_relative "base"

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
    #
    # Its Ruby side takes requests from a queue that now and then misses a
    # wake-up and waits out poll_timeout (Agoo's documented default 0.1 s:
    # "Lower gives faster response times but uses more CPU"). Measured here
    # on /server: p99 about 100 ms at any concurrency, 50-90 req/s at c=1,
    # the server's CPU under 10%; wrk sees the same. The default stays Agoo's
    # own; poll_timeout is the documented way to trade CPU for latency (on a
    # loaded 2-core box 0.01 did not pay: measure it). The `agoo` command has
    # no flag for it, so a small file loaded with -r passes it to
    # Agoo::Server.init.
    class Agoo < Base
      server "agoo", "evented C core, Ruby threads, forked copies without respawn"

      def self.concurrency_note = "Agoo's Rack handler sets thread_count 0 whatever -t says (lib/rack/handler/agoo.rb " \
        "in agoo 2.15), so each worker runs the app on its main thread, one request at a time: its slots are its workers"
      tunable "workers", min: 1, max: ->(m) { 2 * m.server_cores }
      tunable "threads", min: 1, max: 16
      tune_start("a worker per core, 4 threads (a guess: its docs give no rule)") { |cores| {"workers" => cores, "threads" => 4} }
      slots("workers x threads") { |s| [s["workers"].to_i, 1].max * s["threads"].to_i }

      # Its init file goes beside it, with the settings it reads (poll_timeout
      # and the threads: agoo's Rack handler drops -t), and no second listener
      # on Agoo's default port; static files from public/, not the app's own
      # directory (Agoo's default root is ".": it would serve config.ru).
      def self.config_file(s, rackup:)
        ConfigFile.script(key, ["env", "ARENA_AGOO_POLL_TIMEOUT=#{s["poll_timeout"] || "0.1"}", "ARENA_AGOO_THREADS=#{s["threads"]}",
          "bundle", "exec", "agoo", "-r", "./#{INIT_FILE}", "-b", Support::Quote.port("http://0.0.0.0:", default: 6464),
          "-w", s["workers"], "-t", s["threads"], "-d", "public", rackup], files: {INIT_FILE => INIT})
      end

      def self.worker_setting = "workers"

      def self.settings
        {"workers" => ->(m) { m.default_workers }, "threads" => 4, "poll_timeout" => "0.1"}
      end

      # threads=0 (the `agoo` command's own default) runs the app on the main thread.
      def self.allowed
        {"workers" => 1.., "threads" => 0..,
         "poll_timeout" => Pattern.new(/\A(1(\.0+)?|0?\.(?!0000)\d+)\z/, "seconds from 0.0001 to 1")}
      end

      INIT_FILE = "agoo_init.rb"

      # Loaded with -r before Agoo starts (bin/agoo has no flag for either).
      # - Bind only where asked: for a rackup file bin/agoo sets port 9292
      #   when none is given, and Agoo::Server.init then listens on
      #   0.0.0.0:9292 beside every --bind URL (its docs: "If bind option is
      #   to be used instead of the port then set the port to zero"). That
      #   exposed the app on every interface and failed whenever anything held
      #   9292 (rackup's default).
      # - poll_timeout from the environment (Agoo's own 0.1 by default).
      # - The threads asked for. For a rackup file bin/agoo never passes -t
      #   on (its `run` hands Rack::Handler::Agoo only the workers), and the
      #   handler sets thread_count 0 whatever it is given
      #   (lib/rack/handler/agoo.rb in agoo 2.15: `options[:thread_count] =
      #   0`): the app then runs on each process's main thread, one request
      #   at a time. Measured here before this line, workers=2 threads=4 on
      #   a 50 ms sleep with 32 connections served 19.7-39 req/s, one or two
      #   requests at a time (its 8 declared slots give 160): the
      #   under-concurrent finding. With it, the threads serve (Agoo's own
      #   thread pool, taking requests from its queue without the GVL).
      INIT = <<~RUBY
        # Written by Arena (see lib/arena/servers/agoo.rb).
        require "agoo"
        module ArenaAgooInit
          def init(port, root, options = {})
            binds = Array(options[:bind] || options[:b])
            port = 0 unless binds.empty?
            options = options.reject { |k, _| k == :Port || k == :port } unless binds.empty?
            timeout = ENV["ARENA_AGOO_POLL_TIMEOUT"]
            options = options.merge(poll_timeout: Float(timeout)) if timeout
            # ARENA_AGOO_THREADS is not passed on yet: with a thread pool
            # Agoo::Server.start returns at once, and kept up, the process
            # hung in the crash/restart scenarios (session 6; open in issue 33).
            super(port, root, options)
          end
        end
        Agoo::Server.singleton_class.prepend(ArenaAgooInit)
      RUBY

      # Agoo serves static files from its root (default: the working dir,
      # here the app's dir) for any path the app does not match; an empty
      # dir keeps every request on the app.
      def command(app:, bind:, dir:)
        root = File.join(dir, "agoo-public")
        FileUtils.mkdir_p(root)
        url = bind.uri("http")
        bundle_exec("agoo", *init_require(dir), "-b", url, "-w", workers.to_s, "-t", settings["threads"].to_s,
          "-d", root, "--no-log-colorize", app.rackup)
      end

      def env(app:) = super.merge("ARENA_AGOO_POLL_TIMEOUT" => settings["poll_timeout"], "ARENA_AGOO_THREADS" => settings["threads"].to_s)

      def workers = settings["workers"]

      def accepting_workers = workers

      # agoo 2.15's command defines --ssl_cert and --ssl_key without a value
      # (OptionParser refuses `--ssl_cert=FILE` as a needless argument), so its
      # TLS cannot be reached from the command line Arena starts.
      def transport_unsupported(transport)
        return nil if transport.plain?
        "the agoo command's --ssl_cert/--ssl_key take no value (agoo #{Gem.loaded_specs["agoo"]&.version || "2.15"}): its TLS cannot be started from the command line; put a front before it"
      end

      # A dead copy stays a zombie child (nobody reaps it): not a worker.
      def worker_pids(group)
        super.reject { |pid| System::Procfs.stat(pid)&.state == "Z" }
      end

      private

      def init_require(dir)
        path = File.join(dir, INIT_FILE)
        File.write(path, INIT)
        ["-r", path]
      end
    end
  end
end
