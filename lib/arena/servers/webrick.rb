# frozen_string_literal: true

require_relative "../bundle/installation"
require_relative "base"

module Arena
  module Servers
    # WEBrick through rackup: a thread per connection, the baseline.
    class Webrick < Base
      server "webrick", "thread per connection (baseline)"

      def self.install(app)
        webrick = Bundle::Installation.gem("webrick", app)
        return webrick unless webrick.found
        rackup = Bundle::Installation.gem("rackup", app)
        rackup.found ? webrick : rackup
      end

      # It runs through rackup, a gem of its own beside webrick.
      def self.bundle_gems = %w[webrick rackup]

      def command(app:, bind:, dir:)
        bundle_exec("rackup", "-s", "webrick", "-E", "production", "-o", bind.host, "-p", bind.port.to_s,
          "-P", File.join(dir, "webrick.pid"), app.rackup)
      end

      def supports?(_feature) = false

      # rackup stops WEBrick on INT (it traps INT and shuts the server down);
      # TERM is not trapped, and WEBrick logged "FATAL SignalException:
      # SIGTERM" with a backtrace on every normal stop.
      def stop_signal = "INT"

      # A thread per connection: no fixed figure for RAILS_MAX_THREADS.
      def request_threads = nil
    end
  end
end
