# frozen_string_literal: true

module Arena
  module Servers
    # uWSGI with Debian's rack plugin for Ruby 3.1: a master and N forked
    # workers, each serving one request at a time, straight on the socket (no
    # http router process in between).
    #
    # socket=http11 (the default) keeps connections alive, but a worker stays
    # with its connection until the client goes quiet for socket_timeout
    # seconds, and it ignores a request's "Connection: close" (uWSGI's own
    # source says so): a client that waits for the close waits socket_timeout.
    # uWSGI's default there is several seconds, longer than Arena's readiness
    # probe waits, so Arena sets 1 s and reports it. socket=http closes after
    # every response, like Unicorn.
    #
    # Debian's uWSGI 2.0.21 predates Rack 3: its rack plugin takes the first
    # element of what Rack::Builder.parse_file returns and refuses anything
    # but an Array, while Rack 3 returns the app itself. The adapter writes a
    # small shim into the server's dir (loaded with --rbrequire) that gives
    # the plugin the Rack 2 shape; the app and Rack are untouched.
    #
    # Without --die-on-term, TERM makes uWSGI reload rather than exit, and a
    # stop would hang until KILL.
    class Uwsgi < Base
      server "uwsgi", "master + workers (rack plugin, --http11-socket)"

      PROGRAM = "/usr/bin/uwsgi"
      PLUGIN = "rack_ruby31"
      PLUGIN_DIR = "/usr/lib/uwsgi/plugins"

      def self.install(_app)
        unless File.exist?(File.join(PLUGIN_DIR, "#{PLUGIN}_plugin.so"))
          return Installation.missing("#{PLUGIN_DIR}/#{PLUGIN}_plugin.so missing (apt-get install uwsgi-plugin-rack-ruby3.1)")
        end
        Installation.program(PROGRAM, version_argv: ["--version"])
      end

      def self.settings
        {"processes" => ->(m) { m.default_workers }, "socket" => "http11", "socket_timeout" => 1}
      end

      SHIM = <<~RUBY
        # Written by Arena for uWSGI 2.0.21's rack plugin (see servers/uwsgi.rb).
        require "rack"
        module ArenaUwsgiParseFile
          def parse_file(*args, **opts)
            app = super
            app.is_a?(Array) ? app : [app, {}]
          end
        end
        Rack::Builder.singleton_class.prepend(ArenaUwsgiParseFile)
      RUBY

      def command(app:, bind:, dir:)
        shim = File.join(dir, "uwsgi_rack3_shim.rb")
        File.write(shim, SHIM)
        [PROGRAM, "--plugin", PLUGIN, "--#{socket_kind}-socket", bind.tcp? ? "#{bind.host}:#{bind.port}" : bind.path,
          "--socket-timeout", settings["socket_timeout"].to_s,
          "--master", "--processes", workers.to_s, "--die-on-term", "--need-app",
          # Load the app through the app's bundle, not the system gems.
          "--rbrequire", "bundler/setup", "--rbrequire", shim, "--rack", app.rackup, "--chdir", app.dir,
          "--pidfile", File.join(dir, "uwsgi.pid"), "--touch-chain-reload", touch_file(dir)]
      end

      def workers = settings["processes"]

      def socket_kind
        kind = settings["socket"]
        raise UsageError, "uwsgi: socket must be http11 or http, not #{kind.inspect}" unless %w[http11 http].include?(kind)
        kind
      end

      def supports?(feature)
        (feature == :unix) || (feature == :keep_alive && socket_kind == "http11")
      end

      # Touching the file makes the master replace workers one at a time
      # (chain reload); HUP is the graceful reload of every worker at once.
      # Without --lazy-apps both fork the new workers from the master, which
      # loaded the app once: they restart processes, not code.
      def restart_mechanisms = [:chain, :hup]

      def restart(group, mechanism)
        case mechanism
        when :chain
          FileUtils.touch(touch_file(File.dirname(group.log_path)))
          true
        when :hup then group.signal("HUP")
        else :unsupported
        end
      end

      private

      def touch_file(dir) = File.join(dir, "uwsgi.chain-reload")
    end
  end
end
