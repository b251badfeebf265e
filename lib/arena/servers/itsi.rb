# frozen_string_literal: true

require_relative "../core"
require_relative "../support/quote"
require_relative "base"

module Arena
  module Servers
    # Itsi: a Rust (hyper/tokio) HTTP core calling the Rack app from Ruby
    # threads (or a fiber scheduler), in one process or in forked workers.
    # The gem is precompiled for x86_64-linux (itsi-server; Ruby >= 3.1).
    #
    # Without an Itsi.rb the flags are the whole config; with one in the
    # app's directory Itsi reads it too, as the app's deployment would.
    #
    # Signals (ext/itsi_server/src/server/signal.rs): HUP reloads, which with
    # workers boots a new worker and then retires an old one, one pair at a
    # time (phased); USR1 restarts, re-executing the master on the sockets it
    # holds (hot). A single process restarts in place for either.
    class Itsi < Base
      server "itsi", "Rust core, Ruby threads (or fibers), optional forked workers"
      tunable "workers", min: 1, max: ->(m) { 2 * m.server_cores }
      tunable "threads", min: 1, max: 32
      tune_start("a worker per core, 5 threads (Puma's rule: Itsi's docs give none)") { |cores| {"workers" => cores, "threads" => 5} }
      # With the fiber scheduler a thread runs any number of requests: no fixed ceiling.
      slots("workers x threads, no fixed ceiling with fibers") { |s| [s["workers"].to_i, 1].max * s["threads"].to_i unless s["fibers"] }

      # Itsi reads Itsi.rb from the app's directory (`itsi serve`).
      def self.config_file(s, rackup:)
        text = <<~RUBY
          # Found by `arena tune`; Itsi reads Itsi.rb from the app's directory (`itsi serve`).
          workers #{s["workers"]}
          threads #{s["threads"]}
          fiber_scheduler #{s["fibers"] ? "true" : "nil"}
          bind "http://0.0.0.0:\#{ENV.fetch("PORT", 3000)}"
          rackup_file #{Support::Quote.plain!(rackup, "rackup").inspect}
        RUBY
        ConfigFile.new(name: "Itsi.rb", text: text, command: ["bundle", "exec", "itsi", "serve"])
      end

      def self.worker_setting = "workers"

      def self.gem_name = "itsi-server"

      def self.settings
        {"workers" => ->(m) { m.default_workers }, "threads" => 5, "fibers" => false}
      end

      def self.allowed = {"workers" => 1.., "threads" => 1..}

      # `itsi serve --fiber_scheduler` looks up Itsi::Scheduler in each
      # worker; the class is in the itsi-scheduler gem (the `itsi` gem's
      # other half), which nothing requires and Arena does not add beside an
      # app. Without it Itsi says "Rolling into action" and never answers
      # (issue 33: "not ready after 30s"), so fibers=true is refused when the
      # plan is made, with the reason.
      def initialize(**)
        super
        return unless settings["fibers"]
        installed = Gem::Specification.find_all_by_name("itsi-scheduler").empty? ? "not installed here" : "installed here, but not in the app's bundle"
        raise UsageError, "itsi: fibers=true needs Itsi::Scheduler from the itsi-scheduler gem (#{installed}; Arena does not add " \
          "it beside the app): without it Itsi starts and never answers; use fibers=false"
      end

      def command(app:, bind:, dir:)
        listen = bind.tls? ? "https://#{bind.address}?cert=#{bind.tls.cert}&key=#{bind.tls.key}" : bind.uri("http")
        # Itsi writes its pid file into the working directory (the app's)
        # unless told where: the server's own directory instead.
        argv = ["env", "ITSI_SERVER_PID_DIR=#{dir}", *bundle_exec("itsi", "serve", "--bind", listen, "--workers", workers.to_s,
          "--threads", settings["threads"].to_s, "--rackup_file", app.rackup)]
        argv << "--fiber_scheduler" if settings["fibers"]
        argv
      end

      def workers = settings["workers"]

      def accepting_workers = workers

      # hyper under Itsi: TLS with ALPN h2 and http/1.1, and h2c by prior knowledge.
      def transport_unsupported(_transport) = nil

      def restart_mechanisms = (workers > 1) ? [:phased, :hot] : [:hot]

      def restart(group, mechanism)
        return :unsupported unless restart_mechanisms.include?(mechanism)
        group.signal((mechanism == :phased) ? "HUP" : "USR1")
      end

      # With the fiber scheduler there is no fixed figure for RAILS_MAX_THREADS.
      def request_threads = settings["fibers"] ? nil : settings["threads"]
    end
  end
end
