# frozen_string_literal: true

module Arena
  # The checkout or gem Arena runs from.
  ROOT = File.expand_path("..", __dir__)

  # A production app as it is deployed: Rails and Rack read these.
  APP_ENV = {"RACK_ENV" => "production", "RAILS_ENV" => "production"}.freeze

  # A problem Arena can explain in one line; the CLI prints it and exits 1.
  class Error < StandardError; end

  # Bad input on the command line; exit status 2.
  class UsageError < Error; end

  # A failure a process's log explains: its last lines travel with it.
  class LoggedError < Error
    attr_reader :log_tail

    def initialize(message, log_tail: [])
      super(message)
      @log_tail = log_tail
    end
  end
end

require "time"
# The folders in the order data flows (docs/ARCHITECTURE.md); the load
# settings come before the plan, whose flags and defaults are made of them.
require_relative "arena/version"
require_relative "arena/support/clock"
require_relative "arena/support/affinity"
require_relative "arena/support/signals"
require_relative "arena/support/quote"
require_relative "arena/support/plain_yaml"
require_relative "arena/support/registry"
require_relative "arena/plan/plan"
require_relative "arena/plan/transport"
require_relative "arena/load/slow_clients"
require_relative "arena/load/profile"
require_relative "arena/load/settings"
require_relative "arena/plan/machine"
require_relative "arena/plan/workloads"
require_relative "arena/plan/runtime"
require_relative "arena/plan/envelope"
require_relative "arena/plan/estimate"
require_relative "arena/plan/budget"
require_relative "arena/plan/builder"
require_relative "arena/plan/config_file"
require_relative "arena/presets"
require_relative "arena/bundle/app_source"
require_relative "arena/bundle/installation"
require_relative "arena/servers/rails_knobs"
require_relative "arena/servers/base"
require_relative "arena/fronts/front"
require_relative "arena/fronts/nginx"
require_relative "arena/fronts/caddy"
require_relative "arena/fronts/thruster"
require_relative "arena/fronts/fronts"
require_relative "arena/launch/log_cap"
require_relative "arena/launch/process_group"
require_relative "arena/launch/bind"
require_relative "arena/launch/cgroups"
require_relative "arena/launch/cgroup"
require_relative "arena/launch/server_contract"
require_relative "arena/launch/boot_log"
require_relative "arena/launch/local_server"
require_relative "arena/launch/certificates"
require_relative "arena/launch/database"
require_relative "arena/launch/postgres"
require_relative "arena/launch/starter_contract"
require_relative "arena/launch/starter"
require_relative "arena/launch/session"
require_relative "arena/verify/http_probe"
require_relative "arena/verify/verify"
require_relative "arena/verify/tfb"
require_relative "arena/verify/transport_check"
require_relative "arena/load/engine"
require_relative "arena/probes/procfs"
require_relative "arena/probes/cgroup_watch"
require_relative "arena/probes/queue_time"
require_relative "arena/probes/sampler"
require_relative "arena/probes/spread"
require_relative "arena/probes/noise"
require_relative "arena/probes/probe_set"
require_relative "arena/scenarios/warmup"
require_relative "arena/scenarios/settle"
require_relative "arena/scenarios/at"
require_relative "arena/scenarios/base"
require_relative "arena/stats"
require_relative "arena/stats/linear_fit"
require_relative "arena/results/envelope_figures"
require_relative "arena/results/database_figures"
require_relative "arena/results/measurement"
require_relative "arena/results/document"
require_relative "arena/results/store"
require_relative "arena/results/tune_document"
require_relative "arena/results/host_facts"
require_relative "arena/verdicts/verdict"
require_relative "arena/verdicts/stall"
require_relative "arena/verdicts/concurrency"
require_relative "arena/verdicts/batching"
require_relative "arena/verdicts/pool_exhaustion"
require_relative "arena/verdicts/truncated_response"
require_relative "arena/verdicts/crash_line"
require_relative "arena/verdicts/event_analysis"
require_relative "arena/verdicts/soak"
require_relative "arena/verdicts/spike"
require_relative "arena/verdicts/rate_plan"
require_relative "arena/verdicts/knee_rounds"
require_relative "arena/run/rounds"
require_relative "arena/run/round_size"
require_relative "arena/run/precision"
require_relative "arena/run/kept_up_rounds"
require_relative "arena/run/restarted_rounds"
require_relative "arena/run/runner"
require_relative "arena/report/preset_summary"
require_relative "arena/report/rows"
require_relative "arena/report/relative"
require_relative "arena/report/labels"
require_relative "arena/report/progress"
require_relative "arena/report/aa"
require_relative "arena/report/per_request"
require_relative "arena/report/queue_work"
require_relative "arena/report/envelope_lines"
require_relative "arena/report/findings"
require_relative "arena/report/advice"
require_relative "arena/report/terminal"
require_relative "arena/report"
require_relative "arena/cli"

Arena::Servers.load_all
Arena::Scenarios.load_all
Arena::Presets.load_all
