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
# The folders in the order data flows (docs/ARCHITECTURE.md). Each folder's file requires
# its own files; the load settings come before the plan, whose flags are made of them.
require_relative "arena/version"
require_relative "arena/support"
require_relative "arena/system"
require_relative "arena/load"
require_relative "arena/plan"
require_relative "arena/presets"
require_relative "arena/bundle"
require_relative "arena/servers"
require_relative "arena/fronts"
require_relative "arena/launch"
require_relative "arena/verify"
require_relative "arena/probes"
require_relative "arena/scenarios"
require_relative "arena/stats"
require_relative "arena/results"
require_relative "arena/verdicts"
require_relative "arena/planner"
require_relative "arena/run"
require_relative "arena/report"
require_relative "arena/cli"

Arena::Servers.load_all
Arena::Scenarios.load_all
Arena::Presets.load_all
