# frozen_string_literal: true

require "fileutils"
require "tmpdir"

module Arena
  # Carries out a Plan: for each server config, start, verify, run every
  # scenario on every workload that verified, stop. Results go to the store as
  # they are measured; the reporter hears of each step.
  #
  # Reporter protocol (every reporter answers all of these):
  #   planned(plan, total)          before anything starts; total = measurements planned
  #   server_started(record)        a server answered and was verified
  #   server_failed(label, message, log_tail)
  #   measured(record)              one measurement is in the store
  #   finished(document, interrupted:)
  class Runner
    attr_reader :failures

    def initialize(plan:, reporter:, store:, engine_dir: nil)
      @plan = plan
      @reporter = reporter
      @store = store
      @engine_dir = engine_dir || plan.out_dir
      @failures = []
    end

    def call
      @reporter.planned(@plan, planned_count)
      engine = Load::Engine.new(dir: @engine_dir, machine: @plan.machine)
      @plan.servers.each_with_index { |adapter, i| run_server(adapter, engine, i) }
      @store.finish
      @reporter.finished(@store.document, interrupted: false)
      self
    rescue Interrupt
      @store.finish(interrupted: true)
      @reporter.finished(@store.document, interrupted: true)
      raise
    ensure
      FileUtils.rm_rf(@socket_dir) if @socket_dir
    end

    private

    def planned_count
      per_server = @plan.servers.map do |adapter|
        @plan.scenarios.sum { |name| Scenarios.fetch(name).new.planned(@plan.load, adapter) }
      end
      per_server.sum * @plan.workloads.size * @plan.repeat
    end

    def run_server(adapter, engine, index)
      label = adapter.label
      installation = adapter.class.install(@plan.app)
      return fail_server(label, "#{label}: not installed (#{installation.why})", [], installation) unless installation.found

      dir = File.join(@plan.out_dir, "servers", format("%02d-%s", index + 1, label.gsub(/[^\w.=-]+/, "_")))
      bind = bind_for(dir)
      server = @server = new_server(adapter, bind, dir)
      begin
        server.start
      rescue ServerRun::Failed => e
        return fail_server(label, e.message, e.log_tail, installation, server)
      end
      if @plan.front
        begin
          @front = Proxy::Nginx.new(upstreams: adapter.upstreams(server.bind), dir: File.join(dir, "nginx"),
            machine: @plan.machine).start
        rescue Error => e
          return fail_server(label, "#{label}: nginx in front failed: #{e.message}", [], installation, server)
        end
      end
      entry = @front ? @front.bind : server.bind
      outcomes = Verify.new(bind: server.bind, probe: HttpProbe.new(entry, timeout: 10)).call(@plan.workloads)
      record = server_record(adapter, installation, server).merge("verify" => outcomes.map(&:to_h),
        "topology" => @front ? {"front" => @front.to_h} : {"front" => nil})
      good = @plan.workloads.select { |wl| outcomes.find { |o| o.workload == wl.name }&.ok }
      if good.empty?
        return fail_server(label, "#{label}: failed verification (#{outcomes.flat_map(&:problems).first})", [], installation, server, record)
      end
      @store.add_server(record.merge("status" => "ok"))
      @reporter.server_started(record)
      good.each { |workload| run_workload(adapter, workload, engine, dir) }
    ensure
      @front&.stop
      @server&.stop
      @server = @front = nil
    end

    def new_server(adapter, bind, dir)
      ServerRun.new(adapter: adapter, app: @plan.app, bind: bind, dir: dir, machine: @plan.machine,
        ready_timeout: @plan.ready_timeout)
    end

    # Stops the current server and starts the same config afresh on the same
    # bind: after a crash or restart scenario, the next one starts clean.
    def fresh_server
      old = @server
      old.stop
      @server = new_server(old.adapter, old.bind, old.dir).start
    end

    def run_workload(adapter, workload, engine, dir)
      @plan.scenarios.each do |name|
        scenario = Scenarios.fetch(name).new
        @plan.repeat.times do |i|
          ctx = Scenarios::Context.new(server: @server, workload: workload, engine: engine, load: @plan.load,
            dir: dir, machine: @plan.machine, restarter: -> { fresh_server }, front: @front)
          scenario.call(ctx).each do |measurement|
            measurement = measurement.merge("repeat" => i + 1)
            @store.add_measurement(measurement)
            @reporter.measured(measurement)
          end
          fresh_server if scenario.disruptive?
        end
      end
    end

    # Unix socket paths are limited to 107 bytes, so sockets live in a short
    # temporary directory of their own, removed at the end of the run.
    def bind_for(dir)
      if @plan.bind == "unix"
        @socket_dir ||= Dir.mktmpdir("arena-")
        return Bind.unix(File.join(@socket_dir, "#{File.basename(dir)[0, 2]}.sock"))
      end
      @plan.port ? Bind.tcp(port: @plan.port) : Bind.tcp
    end

    def server_record(adapter, installation, server)
      {
        "label" => adapter.label, "name" => adapter.key, "settings" => adapter.settings,
        "version" => installation.version, "source" => installation.source,
        "command" => server.argv, "bind" => server.bind.to_h, "boot_s" => server.boot_s,
        "cpus" => @plan.machine.server_cpus, "workers" => adapter.workers
      }
    end

    def fail_server(label, message, log_tail, installation, server = nil, record = nil)
      record ||= {"label" => label, "version" => installation.version, "source" => installation.source,
                  "command" => server&.argv}.compact
      @failures << message
      @store.add_server(record.merge("status" => "failed", "error" => message, "log_tail" => log_tail))
      @reporter.server_failed(label, message, log_tail)
      nil
    end
  end
end
