# frozen_string_literal: true

require "digest"
require_relative "../bundle/installation"
require_relative "../support/quote"
require_relative "../system/procfs"
require_relative "base"

module Arena
  module Servers
    # uWSGI with Debian's rack plugin for Ruby 3.1: a master and N forked
    # workers, each serving one request at a time.
    #
    # mode=http (the default) is the deployment uWSGI's docs recommend when
    # clients talk to uWSGI directly ("Things to know": use --http to expose
    # uWSGI, --http-socket only behind a proxy; the Rack quickstart runs
    # `--http :8080 --rack app.ru --master --processes N`). The HTTP router, a
    # process of its own, holds the clients' connections, with keep-alive
    # (--http-keepalive), and hands each request to a free worker over the
    # uwsgi protocol. --http-auto-chunked makes it chunk a response that has
    # no Content-Length on a kept-alive connection; on one the client asked
    # to close it sends such a body close-delimited without saying
    # "Connection: close", which is why the shim below frames it anyway.
    #
    # mode=http11-socket and mode=http-socket put HTTP on the workers
    # themselves (for use behind a proxy). With http11-socket a worker stays
    # with its keep-alive connection until the client goes quiet for
    # socket_timeout seconds, so with more connections than workers the rest
    # wait (about 100-190 req/s on /server at c=16 here): the trap the 2013
    # comparison fell into. http-socket closes after every response.
    #
    # Debian's uWSGI 2.0.21 predates Rack 3, twice:
    # - its rack plugin takes the first element of what
    #   Rack::Builder.parse_file returns and refuses anything but an Array,
    #   while Rack 3 returns the app itself;
    # - on its HTTP sockets it sends the app's headers as they are, adding
    #   neither Content-Length nor chunking, and keeps the connection open:
    #   a response without Content-Length has no end. Rack 3 leaves that
    #   framing to the server (Puma adds it).
    # The adapter writes a small shim into the server's dir (loaded with
    # --rbrequire) that gives the plugin the Rack 2 shape and frames such
    # responses as a Rack 3 server does: Content-Length for an Array body,
    # chunked for a streamed one (the router passes a chunked response on
    # as it is). The app and Rack are untouched.
    #
    # The rack plugin runs a full GC.start after every request by default
    # (rb-gc-freq 1). Its docs say so on purpose: "we prefer to be aggressive
    # with memory by default instead of making hello-world benchmarkers
    # happy", and tell whoever compares uWSGI with other servers to take that
    # GC into account; the frequency is left to the user ("no
    # one-value-fits-all, experiment"). No other server forces a GC, so Arena
    # sets 1000: about what Ruby's own GC costs the others. Measured here on
    # /server at c=16 (2 processes): gc_freq=1 90 req/s, 10 630, 100 3,260,
    # 1000 5,486, PSS 37-38 MiB for every one. gc_freq=1 is uWSGI as shipped.
    #
    # The HTTP router forwards a response in pieces of its buffer
    # (--http-buffer-size, a memory page, 4 KB, by default) and never sets
    # TCP_NODELAY on its clients' sockets (--tcp-nodelay is for the workers'
    # sockets). Linux's Nagle rule holds a piece shorter than a segment while
    # an earlier short piece is unacknowledged, and on a kept-alive connection
    # the client acknowledges late (delayed ACK, 40 ms at least); on loopback
    # a segment is 64 KB, so every piece is short. Measured here at c=1: every
    # response over 4 KB waited about 44 ms, one TcpExt DelayedACK each
    # (43 of 43 requests); with TCP_NODELAY forced on the router's sockets for
    # the diagnosis, no stall and no delayed ACK. A new connection starts in
    # quick-ACK mode, which is why keep-alive off hides it. No uWSGI option
    # sets TCP_NODELAY there; a buffer of 64 KB makes most pages one write
    # (http_buffer_size, 2 buffers per connection). A response the router
    # still reads in pieces can stall: the measurement says `stalled`.
    #
    # Without --die-on-term, TERM makes uWSGI reload rather than exit, and a
    # stop would hang until KILL.
    class Uwsgi < Base
      server "uwsgi", "master + workers behind uWSGI's HTTP router (rack plugin)"
      tunable "processes", min: 1, max: ->(m) { 4 * m.server_cores }
      tune_start("2 processes per core (its \"Things to know\" starting point)") { |cores| {"processes" => 2 * cores} }
      slots("worker processes") { |s| s["processes"].to_i }

      # Every setting Arena ran with, and the options its command line adds
      # (the router's buffer and chunking, the workers' socket, the shim
      # beside the file, loaded through %d: the file's own directory).
      def self.config_file(s, rackup:)
        mode = s["mode"] || "http"
        text = <<~INI
          ; Found by `arena tune`; start with `env PORT=8080 uwsgi --ini uwsgi.ini` in the app's directory.
          ; Debian's rack plugin predates Rack 3: #{SHIM_FILE}, beside this file, is the shim Arena ran it
          ; with (lib/arena/servers/uwsgi.rb); a Rack 3 app needs it too.
          [uwsgi]
          plugins = #{(mode == "http") ? "http,#{PLUGIN}" : PLUGIN}
          #{listen_lines(s, mode).join("\n")}
          master = true
          processes = #{s["processes"]}
          die-on-term = true
          need-app = true
          auto-procname = true
          rb-gc-freq = #{s["gc_freq"] || 1}
          post-buffering = 4096
          rbrequire = bundler/setup
          rbrequire = %d#{SHIM_FILE}
          rack = #{Support::Quote.ini(rackup, "rackup")}
        INI
        ConfigFile.new(name: "uwsgi.ini", text: text, command: ["env", "PORT=8080", "uwsgi", "--ini", "uwsgi.ini"],
          files: {SHIM_FILE => SHIM})
      end

      # The router in front of the workers (mode http), or the workers on
      # the port themselves.
      def self.listen_lines(s, mode)
        return ["#{mode} = :$(PORT)", "socket-timeout = #{s["socket_timeout"] || 1}"] unless mode == "http"
        ["http = :$(PORT)", "http-keepalive = 1", "http-auto-chunked = true",
          "http-buffer-size = #{s["http_buffer_size"] || 65_536}",
          "; the router reaches the workers here (left alone, uWSGI opens a TCP port for it)",
          "socket = @uwsgi-$(PORT)"]
      end
      private_class_method :listen_lines

      def self.worker_setting = "processes"

      PROGRAM = "/usr/bin/uwsgi"
      PLUGIN = "rack_ruby31"
      PLUGIN_DIR = "/usr/lib/uwsgi/plugins"
      MODES = %w[http http11-socket http-socket].freeze

      def self.install(_app)
        %w[http rack_ruby31].each do |plugin|
          next if File.exist?(File.join(PLUGIN_DIR, "#{plugin}_plugin.so"))
          return Bundle::Installation.missing("#{PLUGIN_DIR}/#{plugin}_plugin.so missing (apt-get install uwsgi-core uwsgi-plugin-rack-ruby3.1)")
        end
        Bundle::Installation.program(PROGRAM, version_argv: ["--version"])
      end

      def self.settings
        {"processes" => ->(m) { m.default_workers }, "mode" => "http", "socket_timeout" => 1, "gc_freq" => 1000,
         "http_buffer_size" => 65_536}
      end

      def self.allowed
        {"processes" => 1.., "mode" => MODES, "socket_timeout" => 1.., "gc_freq" => 1..,
         "http_buffer_size" => 4096..(16 * 1024 * 1024)}
      end

      # What a Rack 3 server does for a response without Content-Length:
      # count an Array body, chunk any other one for an HTTP/1.1 client.
      FRAMING = <<~RUBY
        class ArenaUwsgiFraming
          NO_BODY = [204, 304].freeze

          def initialize(app)
            @app = app
          end

          def call(env)
            status, headers, body = @app.call(env)
            return [status, headers, body] if framed?(status, headers, env)
            if body.respond_to?(:to_ary)
              parts = body.to_ary
              headers["content-length"] = parts.sum(&:bytesize).to_s
              body.close if body.respond_to?(:close) && !parts.equal?(body)
              [status, headers, parts]
            elsif env["SERVER_PROTOCOL"] == "HTTP/1.1"
              headers["transfer-encoding"] = "chunked"
              [status, headers, Chunked.new(body)]
            else
              [status, headers, body]
            end
          end

          private

          def framed?(status, headers, env)
            status.to_i < 200 || NO_BODY.include?(status.to_i) || env["REQUEST_METHOD"] == "HEAD" ||
              headers.any? { |k, _| %w[content-length transfer-encoding].include?(k.to_s.downcase) }
          end

          class Chunked
            def initialize(body)
              @body = body
            end

            def each
              @body.each { |part| yield "\#{part.bytesize.to_s(16)}\\r\\n\#{part}\\r\\n" unless part.empty? }
              yield "0\\r\\n\\r\\n"
            end

            def close = @body.respond_to?(:close) && @body.close
          end
        end
      RUBY

      SHIM_FILE = "uwsgi_rack3_shim.rb"

      # What Ruby's own fork does in the child, done in each worker: uWSGI
      # forks its workers in C once the master has loaded the app, and its
      # rack plugin then calls only UWSGI.post_fork_hook. Without this the
      # worker's VM still counts the master's threads as alive (with the
      # GVL's state of the moment of the fork), and the app's after-fork
      # callbacks (Active Record discarding the master's connections) never
      # run: a worker of an app that started a thread at boot never answered
      # (uWSGI said nothing; Arena waited out its 30 s), and a Rails 7.2 app
      # on SQLite segfaulted at boot. rb_thread_atfork is the C call
      # Process.fork makes in its child; ForkTracker is how Rails hooks it.
      AFTER_FORK = <<~RUBY
        require "fiddle"
        module UWSGI
          ARENA_ATFORK = begin
            Fiddle::Function.new(Fiddle::Handle::DEFAULT["rb_thread_atfork"], [], Fiddle::TYPE_VOID, need_gvl: true)
          rescue Fiddle::DLError
            nil
          end

          def self.post_fork_hook
            ARENA_ATFORK&.call
            ActiveSupport::ForkTracker.after_fork_callback if defined?(ActiveSupport::ForkTracker.after_fork_callback)
          end
        end
      RUBY

      SHIM = <<~RUBY
        # Written by Arena for uWSGI 2.0.21's rack plugin (see servers/uwsgi.rb).
        require "rack"
        #{FRAMING}
        module ArenaUwsgiParseFile
          def parse_file(*args, **opts)
            app = super
            app = app.first if app.is_a?(Array)
            [ArenaUwsgiFraming.new(app), {}]
          end
        end
        Rack::Builder.singleton_class.prepend(ArenaUwsgiParseFile)
        #{AFTER_FORK}
      RUBY

      def command(app:, bind:, dir:)
        shim = File.join(dir, SHIM_FILE)
        File.write(shim, SHIM)
        address = bind.address
        [PROGRAM, "--plugin", router? ? "http,#{PLUGIN}" : PLUGIN, *listen(address), *worker_socket(dir),
          "--master", "--processes", workers.to_s, "--die-on-term", "--need-app", "--auto-procname",
          "--rb-gc-freq", settings["gc_freq"].to_s,
          # "post-buffering is required by the Rack specification" (uWSGI's Ruby docs).
          "--post-buffering", "4096",
          # Load the app through the app's bundle, not the system gems.
          "--rbrequire", "bundler/setup", "--rbrequire", shim, "--rack", app.rackup, "--chdir", app.dir,
          "--pidfile", File.join(dir, "uwsgi.pid"), "--touch-chain-reload", touch_file(dir)]
      end

      def workers = settings["processes"]

      # With http11-socket each worker keeps its own connections alive; the router holds them otherwise.
      def accepting_workers = router? ? nil : workers

      def router? = settings["mode"] == "http"

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

      # --auto-procname names each process; the HTTP router is a child of
      # the master too, but it serves no requests itself.
      def worker_pids(group)
        super.select { |pid| System::Procfs.cmdline(pid).start_with?("uWSGI worker") }
      end

      private

      def listen(address)
        case settings["mode"]
        when "http" then ["--http", address, "--http-keepalive", "--http-auto-chunked", *router_buffer]
        else ["--#{settings["mode"]}", address, "--socket-timeout", settings["socket_timeout"].to_s]
        end
      end

      # Where the router hands requests to the workers. Left to itself uWSGI
      # opens a TCP port of its own on 127.0.0.1 for that: a second listener
      # beside the one Arena asked for. An abstract unix socket (no file, no
      # path-length limit) named for this server's dir keeps the tree on
      # Arena's address alone.
      def worker_socket(dir)
        router? ? ["--socket", "@arena-uwsgi-#{Digest::SHA256.hexdigest(File.expand_path(dir))[0, 16]}"] : []
      end

      # The router's write size (see the class comment on the 40 ms stall).
      def router_buffer = ["--http-buffer-size", settings["http_buffer_size"].to_s]

      def touch_file(dir) = File.join(dir, "uwsgi.chain-reload")
    end
  end
end
