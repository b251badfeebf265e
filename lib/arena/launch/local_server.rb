# frozen_string_literal: true

require "fileutils"
require_relative "../core"
require_relative "../plan/machine"
require_relative "../probes/queue_time"
require_relative "../probes/sampler"
require_relative "../support/clock"
require_relative "../system/bind"
require_relative "../system/process_group"
require_relative "../verdicts/crash_line"
require_relative "../verify/http_probe"
require_relative "database_program"
require_relative "boot_log"
require_relative "cgroups"
require_relative "database"
require_relative "log_cap"
require_relative "server_contract"

module Arena
  module Launch
    # One server config brought up on one bind: spawn through System::ProcessGroup, wait
    # until an HTTP GET is answered, stop and clean up. Failures carry the last
    # lines of the server's log. It answers Launch::ServerContract (running_server.rb),
    # as Remote::Server does for a server on another host.
    class LocalServer
      # crash: the line that says the server cannot run (Verdicts::CrashLine), or how
      # it exited during boot; nil when it merely did not answer in time.
      # transient: the boot exited on a line its adapter names as its own start
      # timing out (transient_boot_patterns): worth one more start.
      class Failed < LoggedError
        attr_reader :crash, :transient

        def initialize(message, log_tail: [], crash: nil, transient: false)
          super(message, log_tail: log_tail)
          @crash = crash
          @transient = transient
        end
      end

      # boot_retry: why the first start of this run failed when a second one
      # was made (what it said as it exited), nil when one start was enough.
      attr_reader :adapter, :bind, :dir, :group, :argv, :boot_s, :env, :boot_retry

      # env: the user's --env, over the adapter's own environment.
      # cgroups: where an envelope's cgroup is made (default: this machine's).
      # queue_time: load Arena's timing wrapper into the server (Probes::QueueTime) and
      # time one request in this many (true: every one); false: no wrapper.
      def initialize(adapter:, app:, bind:, dir:, machine: Plan::Machine.current, ready_timeout: nil, probe_path: "/", env: {}, cgroups: nil,
        queue_time: false)
        @queue_time = queue_time
        @env = env
        @cgroups = cgroups
        @adapter = adapter
        @app = app
        @bind = bind
        @dir = dir
        @machine = machine
        @ready_timeout = ready_timeout || adapter.ready_timeout
        @probe_path = probe_path
      end

      # A boot that exited on its adapter's transient line (Passenger's
      # watchdog not up in its own 7 s on a loaded machine) is made once more,
      # with a readiness deadline of its own; any other failure, and the
      # second, is raised.
      def start
        @boot_retry = nil
        boot
      rescue Failed => e
        raise unless e.transient
        @boot_retry = e.crash
        boot
      end

      # Said after "ready in N s" when a second start was made.
      def self.retried(why) = why ? " at its second start (the first exited: #{why})" : ""

      def stop
        @group&.stop(signal: @adapter.stop_signal)
        @adapter.upstreams(@bind).select(&:unix?).each do |b|
          File.unlink(b.path) if File.socket?(b.path)
        rescue Errno::ENOENT
          nil
        end
      end

      def pids = @group.tree

      def local_pids = pids

      # The timing wrapper's files (Probes::QueueTime::Files), nil when it is not loaded.
      def timing = @queue_time ? Probes::QueueTime::Files.new(timing_dir) : nil

      def timing_dir = File.join(@dir, "timing")

      def worker_pids = @adapter.worker_pids(@group)

      def launch = Launch::Spec.of(adapter: @adapter, app: @app, env: @env)

      def sampler(interval: 0.2, per_process: false) = Probes::Sampler.new(pids: -> { pids }, interval: interval, per_process: per_process)

      def memory(pids) = Launch::ServerContract.memory(pids)

      def kill_worker = @adapter.kill_worker(@group)

      def restart(mechanism) = @adapter.restart(@group, mechanism)

      # Both read over its log's last 5,000 lines: a Ruby [BUG] report's
      # memory map alone (several hundred lines) would fill the 20 of a
      # failure's tail, which shows the report cut to what a person reads.
      def log_tail(lines = 20) = @group ? Verdicts::CrashLine.readable(@group.log_tail(5000)).last(lines) : []

      def crash_line = @group && Verdicts::CrashLine.find(@group.log_tail(5000), patterns: @adapter.crash_patterns)

      # Its log's length now, and what it wrote since (a measurement's share).
      def log_size = @group ? File.size?(@group.log_path).to_i : 0

      def log_since(offset)
        File.open(@group.log_path) { |f| f.seek(offset) && f.read(4 * 1024**2) }.to_s
      rescue SystemCallError, NoMethodError
        ""
      end

      # The envelope's cgroup the server runs in, or nil without an envelope.
      def cgroup = @group&.cgroup

      # The same config, to start afresh after a crash or restart scenario: on
      # a new port unless the user pinned one. A server that closes
      # connections itself leaves them in TIME_WAIT on its port for a minute,
      # and one whose listener lacks SO_REUSEADDR (Agoo) cannot bind that port
      # again meanwhile. A unix socket path is reused (stop removes it).
      def successor(keep_port: false)
        bind = (@bind.tcp? && !keep_port) ? System::Bind.tcp(host: @bind.host) : @bind
        bind = bind.with_tls(@bind.tls) if @bind.tls? && !bind.tls? # over TLS as before
        Launch::LocalServer.new(adapter: @adapter, app: @app, bind: bind, dir: @dir, machine: @machine,
          ready_timeout: @ready_timeout, probe_path: @probe_path, env: @env, cgroups: @cgroups, queue_time: @queue_time)
      end

      def to_h
        h = {label: @adapter.label, argv: @argv, bind: @bind.to_h, boot_s: @boot_s, cpus: @machine.server_cpus}
        @boot_retry ? h.merge(boot_retry: @boot_retry) : h
      end

      private

      # The app's connections to a database named after this config (PGAPPNAME), under what
      # the adapter and the user set.
      def database_env = Launch::Database.counted?(@app) ? Launch::DatabaseProgram.app_name_env(@adapter.label) : {}

      # One start. Whatever ends it early (a failed boot, Ctrl-C, TERM, a bug)
      # stops what it spawned: the group is held from before the spawn.
      def boot
        started_ok = false
        FileUtils.mkdir_p(@dir)
        deadline = Support::Clock.now + PORT_WAIT
        @adapter.upstreams(@bind).select(&:tcp?).each { |b| wait_port_free(b, deadline) }
        @argv = @adapter.command(app: @app, bind: @bind, dir: @dir)
        env = database_env.merge(@adapter.env(app: @app)).merge(@env)
        if @queue_time
          FileUtils.mkdir_p(timing_dir)
          Probes::QueueTime.write_mode(timing_dir, (@queue_time == true) ? 1 : @queue_time)
          env = env.merge(Probes::QueueTime.env(timing_dir, env))
        end
        log_path = File.join(@dir, "server.log")
        @group = System::ProcessGroup.new(@argv, env: env, chdir: @app.dir,
          log_path: log_path, cpus: @machine.server_cpus, cgroup: new_cgroup,
          log_cap: Launch::LogCap.new)
        @boot_log = Launch::BootLog.new(log_path, patterns: @adapter.crash_patterns, transient: @adapter.transient_boot_patterns)
        started = Support::Clock.now
        @group.start
        wait_ready
        @boot_s = (Support::Clock.now - started).round(3)
        started_ok = true
        self
      ensure
        stop unless started_ok
      end

      def new_cgroup
        return nil unless @adapter.envelope.bounded?
        (@cgroups || Launch::Cgroups.current).create(@adapter.envelope)
      end

      # A fresh start on the port of a server just stopped (after a crash or
      # restart scenario) waits for the old listener to be gone; a port some
      # other program holds is reported once the wait is over.
      PORT_WAIT = 5

      def wait_port_free(bind, deadline)
        loop do
          return TCPServer.new(bind.host, bind.port).close
        rescue Errno::EADDRINUSE
          raise Failed, "#{@adapter.label}: port #{bind.port} on #{bind.host} is already in use" if Support::Clock.now > deadline
          sleep 0.05
        end
      end

      # Every address must answer (each port of a cluster), not just the first.
      def wait_ready
        deadline = Support::Clock.now + @ready_timeout
        @adapter.upstreams(@bind).each { |bind| wait_answer(bind, deadline) }
      end

      # The log is read between probes: a crash line ends the wait at once,
      # as the leader's exit does.
      def wait_answer(bind, deadline)
        exited = crash = nil
        failure = Verify::HttpProbe.new(bind, timeout: 2).await(@probe_path, deadline: deadline) do
          (exited = @group.exited) || (crash = @boot_log.crash)
        end
        return unless failure
        if exited
          line = @boot_log.crash(final: true)
          raise Failed.new("#{@adapter.label} exited during boot#{" again" if @boot_retry} (#{describe(exited)})#{": #{line}" if line}",
            log_tail: log_tail, crash: line || describe(exited), transient: !@boot_log.transient.nil?)
        end
        raise Failed.new("#{@adapter.label} crashed during boot: #{crash}", log_tail: log_tail, crash: crash) if crash
        hint = @adapter.slow_boot_hint(@app) if @adapter.respond_to?(:slow_boot_hint)
        raise Failed.new("#{@adapter.label} not ready after #{@ready_timeout}s (#{failure})#{"; #{hint}" if hint}", log_tail: log_tail)
      end

      def describe(status)
        return "status unknown" unless status.is_a?(Process::Status)
        status.signaled? ? "killed by signal #{status.termsig}" : "exit status #{status.exitstatus}"
      end
    end
  end
end
