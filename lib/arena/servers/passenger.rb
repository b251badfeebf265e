# frozen_string_literal: true

module Arena
  module Servers
    # Passenger Standalone from Debian's package (the gem would download or
    # compile its agent, which cannot happen offline). Debian's build has only
    # the builtin engine. Passenger's own defaults (pool 6, queue 100,
    # turbocaching on) would shape the results, so each is set explicitly and
    # shows in the label.
    #
    # `passenger start` stays in the foreground, but it always launches its
    # watchdog (and the core and app processes under it) with --daemonize: a
    # double fork that would hand them to init, out of reach of the process
    # tree Arena samples and stops. The command therefore starts with a
    # two-line wrapper that marks the leader a child subreaper (kept across
    # exec) before exec'ing passenger: orphans of the tree come back to it.
    # The wrapper also points TMPDIR at the server's dir, where passenger
    # start makes its working dir (and leaves it behind when the engine fails
    # to start).
    class Passenger < Base
      server "passenger", "Passenger Standalone (builtin engine): spawner + app processes"

      PROGRAM = "/usr/bin/passenger"

      # ruby -e SUBREAPER TMPDIR COMMAND...: prctl(PR_SET_CHILD_SUBREAPER = 36, 1),
      # then exec the real command.
      SUBREAPER = <<~RUBY
        require "fiddle"
        prctl = Fiddle::Function.new(Fiddle::Handle::DEFAULT["prctl"], [Fiddle::TYPE_INT] * 5, Fiddle::TYPE_INT)
        abort "prctl(PR_SET_CHILD_SUBREAPER) failed" unless prctl.call(36, 1, 0, 0, 0).zero?
        ENV["TMPDIR"] = ARGV.shift
        exec(*ARGV)
      RUBY

      def self.install(_app) = Installation.program(PROGRAM, version_argv: ["--version"])

      def self.settings
        {"pool" => ->(m) { m.default_workers }, "queue" => 100, "turbocaching" => false}
      end

      def command(app:, bind:, dir:)
        listen = bind.tcp? ? ["--address", bind.host, "--port", bind.port.to_s] : ["--socket", bind.path]
        argv = ["ruby", "-e", SUBREAPER, dir, PROGRAM, "start", app.dir, "--engine", "builtin", *listen,
          "--rackup", app.rackup, "--environment", "production",
          "--max-pool-size", workers.to_s, "--min-instances", workers.to_s,
          "--max-request-queue-size", settings["queue"].to_s,
          "--pid-file", File.join(dir, "passenger.pid"), "--log-file", File.join(dir, "passenger.log"),
          "--instance-registry-dir", dir,
          "--disable-security-update-check", "--disable-anonymous-telemetry", "--no-friendly-error-pages"]
        # The app processes do not inherit passenger's environment.
        env(app: app).each { |name, value| argv.push("--envvar", "#{name}=#{value}") if value }
        argv << "--disable-turbocaching" unless settings["turbocaching"]
        argv
      end

      def workers = settings["pool"]

      def supports?(feature) = %i[unix keep_alive].include?(feature)

      # Touching restart.txt in the restart dir makes Passenger restart the
      # app's processes on the next request. The open-source edition has no
      # rolling restart: it is a blocking one, requests wait meanwhile.
      def restart_mechanisms = [:restart_txt]

      def restart(group, mechanism)
        return :unsupported unless mechanism == :restart_txt
        FileUtils.touch(File.join(File.dirname(group.log_path), "restart.txt"))
        true
      end

      # The app processes ("Passenger RubyApp") are the workers; the
      # preloader, core and watchdog are not.
      def worker_pids(group)
        group.tree.select { |pid| Procfs.stat(pid)&.comm.to_s.start_with?("Passenger Rub") }
      end
    end
  end
end
