# frozen_string_literal: true

require "json"
require_relative "../bundle/installation"
require_relative "../system/procfs"
require_relative "base"

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
    # tree Arena samples and stops. So the leader is a small Ruby supervisor
    # (SUPERVISOR below) that
    # - marks itself a child subreaper, so those orphans come back to it, and
    #   reaps them (a zombie still answers kill(pid, 0), and passenger waits
    #   for its watchdog's pid to vanish);
    # - makes a short private directory for passenger's instance registry and
    #   working dir (their unix sockets would overflow the 108-byte limit
    #   under a results directory) and removes it once every process is gone;
    # - forwards TERM/INT to passenger, and on USR1 runs
    #   `passenger-config restart-app` against that registry.
    class Passenger < Base
      server "passenger", "Passenger Standalone (builtin engine): spawner + app processes"
      tunable "pool", min: 1, max: ->(m) { 4 * m.server_cores }
      tune_start("cores x 1.5 + 1 for a single-threaded app (its docs size the pool by memory and CPU)") { |cores| {"pool" => (cores * 1.5 + 1).round} }
      slots("worker processes") { |s| s["pool"].to_i }

      # Passenger Standalone reads Passengerfile.json from the app's directory.
      def self.config_file(s, rackup:)
        config = {"environment" => "production", "engine" => "builtin", "port" => 3000, "app_type" => "rack", "startup_file" => rackup, "max_pool_size" => s["pool"],
                  "min_instances" => s["pool"], "max_request_queue_size" => s["queue"], "turbocaching" => s["turbocaching"],
                  "disable_security_update_check" => true, "disable_anonymous_telemetry" => true, "friendly_error_pages" => false}.compact
        ConfigFile.new(name: "Passengerfile.json", text: JSON.pretty_generate(config) + "\n", command: ["passenger", "start"])
      end

      def self.worker_setting = "pool"

      PROGRAM = "/usr/bin/passenger"
      CONFIG_PROGRAM = "/usr/bin/passenger-config"

      # ruby -e SUPERVISOR PASSENGER_CONFIG COMMAND...
      SUPERVISOR = <<~RUBY
        require "fiddle"
        require "tmpdir"
        require "fileutils"
        prctl = Fiddle::Function.new(Fiddle::Handle::DEFAULT["prctl"], [Fiddle::TYPE_INT] * 5, Fiddle::TYPE_INT)
        abort "prctl(PR_SET_CHILD_SUBREAPER) failed" unless prctl.call(36, 1, 0, 0, 0).zero?
        config = ARGV.shift
        tmp = Dir.mktmpdir("arena-passenger-")
        env = {"TMPDIR" => tmp, "PASSENGER_INSTANCE_REGISTRY_DIR" => tmp}
        child = Process.spawn(env, *ARGV, "--instance-registry-dir", tmp)
        %w[TERM INT].each { |sig| trap(sig) { Process.kill(sig, child) rescue nil } }
        trap("USR1") { Process.spawn(env, config, "restart-app", "/", "--ignore-app-not-running") }
        status = nil
        loop do
          pid, st = Process.wait2(-1)
          status = st if pid == child
        rescue Errno::ECHILD
          break
        end
        FileUtils.rm_rf(tmp)
        exit(status&.exitstatus || 1)
      RUBY

      def self.install(_app) = Bundle::Installation.program(PROGRAM, version_argv: ["--version"])

      def self.settings
        {"pool" => ->(m) { m.default_workers }, "queue" => 100, "turbocaching" => false}
      end

      def self.allowed = {"pool" => 1..}

      def command(app:, bind:, dir:)
        listen = bind.tcp? ? ["--address", bind.host, "--port", bind.port.to_s] : ["--socket", bind.path]
        argv = ["ruby", "-e", SUPERVISOR, CONFIG_PROGRAM, PROGRAM, "start", app.dir, "--engine", "builtin", *listen,
          "--rackup", app.rackup, "--environment", "production",
          "--max-pool-size", workers.to_s, "--min-instances", workers.to_s,
          "--max-request-queue-size", settings["queue"].to_s,
          "--pid-file", File.join(dir, "passenger.pid"), "--log-file", File.join(dir, "passenger.log"),
          "--disable-security-update-check", "--disable-anonymous-telemetry", "--no-friendly-error-pages"]
        # The app processes do not inherit passenger's environment.
        env(app: app).each { |name, value| argv.push("--envvar", "#{name}=#{value}") if value }
        argv << "--disable-turbocaching" unless settings["turbocaching"]
        argv
      end

      def workers = settings["pool"]

      # `passenger start` waits for its watchdog through its vendored
      # DaemonController (phusion_passenger/vendor/daemon_controller.rb), with
      # limits no option or variable of `passenger start` changes: 15 s in
      # all, the watchdog's daemonizing counted (builtin_engine.rb passes
      # `:timeout => 25`, a key the controller does not read: it reads
      # :start_timeout, line 211), and, once it has daemonized, 7 s without
      # the log file changing (:log_file_activity_timeout, line 213). The log
      # is new at each start here, and a log that did not exist when the
      # start began never counts as changing (log_file_has_changed?), so the
      # watchdog has 7 s after daemonizing to write its report file. Traced
      # here: 0.4 s to daemonize and 0.2 s more beside two busy loops; with 32
      # busy loops on its core 4.7 s and 0.3 s. Beside another integration
      # test file it once missed, and `passenger start` exited 1 with this
      # StartTimeout (or "didn't daemonize in time", the same class). The app
      # is spawned only after the watchdog is up: the line is never the app's.
      START_TIMEOUT = /\(PhusionPassenger::DaemonController::StartTimeout\)/

      def transient_boot_patterns = [START_TIMEOUT]

      # `passenger-config restart-app`, run by the supervisor on USR1. The
      # open-source edition has no rolling restart: it is a blocking one, the
      # app processes are replaced while requests wait in the queue.
      def restart_mechanisms = [:restart_app]

      def restart(group, mechanism)
        (mechanism == :restart_app) ? group.signal("USR1") : :unsupported
      end

      # The app processes ("Passenger RubyApp") are the workers; the
      # preloader, core and watchdog are not.
      def worker_pids(group)
        group.tree.select { |pid| System::Procfs.cmdline(pid).start_with?("Passenger RubyApp") }
      end
    end
  end
end
