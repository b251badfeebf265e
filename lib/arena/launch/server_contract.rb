# frozen_string_literal: true

require_relative "../bundle/app_source"
require_relative "../plan/runtime"
require_relative "../servers/base"
require_relative "../system/procfs"

module Arena
  module Launch
    # The one written interface of a started server, local (Launch::LocalServer) or on
    # the server host through its agent (Remote::Server). Scenarios, Settle and
    # Launch::Session use nothing else, so the two cannot drift apart silently:
    # test/integration/running_server_contract_test.rb runs the same checks
    # against both.
    #
    #   adapter               the adapter it was started from (label, settings, upstreams)
    #   launch                -> Launch::Spec: server, settings, runtime, env, rackup (all that started it)
    #   bind, dir, argv, boot_s
    #   boot_retry            -> what its first start said as it exited, when a second start was made
    #                            (the adapter's transient_boot_patterns); nil after one start
    #   pids                  -> every pid of its process tree, on its own host
    #   worker_pids           -> the pids of its workers, read on its own host ([] for one process)
    #   local_pids            -> pids this host may read in /proc ([] when it runs elsewhere:
    #                            only the probe settles it then)
    #   sampler(interval:, per_process: false) -> started by #start, #stop returns Results::Memory;
    #                            the samples are taken on the server's host
    #   memory(pids)          -> [{"pid", "pss_kb", "rss_kb", "uss_kb"}] of those pids, read there
    #   kill_worker           -> SIGKILL one worker (or the only process); the pid killed
    #   restart(mechanism)    -> the adapter's zero-downtime restart: true (signalled), false (the
    #                            process was gone) or :unsupported
    #   log_tail(lines = 20)  -> the last lines of its log ([] when not kept here)
    #   crash_line            -> the first line of its log that says it crashed (Verdicts::CrashLine, the
    #                            adapter's patterns), nil when none does or the log is not kept here
    #   log_size, log_since(offset) -> its log's length, and the text written since ("" elsewhere)
    #   cgroup                -> the Envelope::Cgroup its tree runs in, nil without an envelope
    #                            (always nil on a server host: --envelope is local only)
    #   timing                -> Probes::QueueTime::Files of Arena's timing wrapper, nil when it is not
    #                            loaded (always nil on a server host: its files are not read here)
    #   start, stop
    module ServerContract
      METHODS = %i[adapter launch bind dir argv boot_s boot_retry pids worker_pids local_pids sampler memory kill_worker restart
        log_tail crash_line log_size log_since cgroup timing start stop].freeze

      # Each process's memory, as Probes::Sampler keeps it per process.
      def self.memory(pids)
        pids.filter_map { |pid| System::Procfs.memory(pid)&.then { |m| {"pid" => pid, "pss_kb" => m.pss_kb, "rss_kb" => m.rss_kb, "uss_kb" => m.uss_kb} } }
      end
    end

    # What starts a server config, whole: the adapter's key and settings, its
    # runtime (YJIT, allocator), the user's --env and the rackup. A remote
    # start sends it to the agent, which rebuilds the very same adapter, so a
    # config labelled +yjit runs with YJIT on either side.
    Spec = Struct.new(:server, :settings, :runtime, :env, :rackup, keyword_init: true) do
      def self.of(adapter:, app:, env: {})
        new(server: adapter.key, settings: adapter.settings, runtime: adapter.runtime.to_a,
          env: env.to_h, rackup: app.builtin ? nil : app.rackup).freeze
      end

      # The wire form (the agent's protocol) and back.
      def self.from_wire(h)
        new(server: h.fetch("server"), settings: h.fetch("settings", {}), runtime: Array(h["runtime"]), env: h.fetch("env", {}),
          rackup: h["rackup"]).freeze
      end

      def to_wire = {"server" => server, "settings" => settings, "runtime" => runtime, "env" => env, "rackup" => rackup}

      def adapter(machine:) = Servers.fetch(server).new(settings: settings, machine: machine, runtime: Plan::Runtime.parse(runtime))

      def app = rackup ? Bundle::AppSource.user(rackup) : Bundle::AppSource.builtin
    end
  end
end
