# frozen_string_literal: true

require "fileutils"
require_relative "../support/quote"
require_relative "base"

module Arena
  module Servers
    # Falcon: fibers on an event loop, in `count` forked processes (or threads).
    # Its default bind is https with a self-signed certificate; Arena always
    # passes an http:// URL.
    class Falcon < Base
      server "falcon", "fibers, forked (or threaded) instances"
      tunable "count", min: 1, max: ->(m) { 2 * m.server_cores }
      tune_start("a process per core (Falcon's default count)") { |cores| {"count" => cores} }
      no_slots "fibers: no fixed ceiling of concurrent requests"

      def self.config_file(s, rackup:)
        ConfigFile.script(key, ["bundle", "exec", "falcon", "serve", "--bind", Support::Quote.port("http://0.0.0.0:", default: 9292),
          "--count", s["count"], "--#{s["model"] || "forked"}", "--config", rackup])
      end

      def self.worker_setting = "count"

      def self.settings
        {"count" => ->(m) { m.default_workers }, "model" => "forked"}
      end

      # `falcon serve` has --forked and --threaded; its hybrid model exists
      # only in a falcon.rb service file, which Arena does not write.
      def self.allowed = {"count" => 1.., "model" => %w[forked threaded]}

      # Over TLS, `falcon serve --bind https://` negotiates h2 or http/1.1 by
      # ALPN with the certificate its localhost gem finds in XDG_STATE_HOME:
      # the run's, laid out there as that gem names them (its issuer and the
      # host's), so the engine verifies it and nothing is generated or written
      # in the user's home.
      def command(app:, bind:, dir:)
        model = settings["model"]
        argv = bundle_exec("falcon", "serve", "--bind", bind.uri(bind.tls? ? "https" : "http"), "--count", workers.to_s,
          "--#{model}", "--config", app.rackup)
        return argv unless bind.tls?
        localhost_state(File.join(dir, "tls-state"), bind)
        ["env", "XDG_STATE_HOME=#{File.join(dir, "tls-state")}", *argv]
      end

      def localhost_state(state, bind)
        store = File.join(state, "localhost.rb")
        FileUtils.mkdir_p(store)
        FileUtils.cp(bind.tls.ca, File.join(store, "development.crt"))
        FileUtils.cp(bind.tls.ca_key, File.join(store, "development.key"))
        FileUtils.cp(bind.tls.cert, File.join(store, "#{bind.host}.crt"))
        FileUtils.cp(bind.tls.key, File.join(store, "#{bind.host}.key"))
      end

      def transport_unsupported(transport)
        return nil unless transport.name == "h2c"
        "falcon serve's http:// endpoint speaks HTTP/1.1 only (h2 needs https)"
      end

      def workers = settings["count"]

      def supports?(_feature) = false

      # HUP makes the controller start a fresh container of instances and stop
      # the old one once the new one is ready.
      def restart_mechanisms = [:hup]

      def restart(group, mechanism)
        (mechanism == :hup) ? group.signal("HUP") : :unsupported
      end

      # A fiber per request: no fixed figure for RAILS_MAX_THREADS.
      def request_threads = nil

      # A child whose app raises at boot logs it (one line of JSON) and
      # stays up, unready, until its 30 s health check: the line is the crash.
      FAILED_TASK = /"Task may have ended with unhandled exception\.".*?"class":"(?<class>[^"]+)","message":"(?<message>(?:[^"\\]|\\.)*)"/

      def crash_patterns = [*super, FAILED_TASK]

      # Measured on the Rails fixture (2 cores, loadavg 12): ready in 27 s
      # where Puma took 18 s; at loadavg 11 it passed 30 s. Each instance
      # boots the app itself, all at once, and Falcon's own health check
      # (30 s by default) stops an instance that has not reported ready.
      def slow_boot_hint(app)
        return nil unless app.respond_to?(:rails?) && app.rails?
        "falcon serve boots the app in each of its #{workers} instances at once (it does not preload it) and stops an " \
          "instance that has not reported ready within its 30 s health check: on a busy or small machine a Rails boot " \
          "can take longer (try count=1, or a quieter machine)"
      end

      # Rails keeps Active Record's connection per thread unless told to
      # keep it per fiber; Falcon serves concurrent requests as fibers of
      # one thread, so they shared a connection and read each other's
      # results (the PG fixture: NoMethodError in the PG adapter,
      # RecordNotFound for rows that exist, then requests that never ended).
      def app_note(app)
        return nil unless app.respond_to?(:rails?) && app.rails? && !fiber_isolation?(app.dir)
        "#{key}: fibers share a DB connection; set config.active_support.isolation_level=:fiber"
      end

      def fiber_isolation?(dir)
        Dir.glob(File.join(dir, "config", "**", "*.rb")).any? { |f| File.read(f).match?(/^\s*config\.active_support\.isolation_level\s*=\s*:fiber/) }
      end
    end
  end
end
