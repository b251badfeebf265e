# frozen_string_literal: true

require "etc"
require_relative "../core"
require_relative "../support/affinity"
require_relative "plan"

module Arena
  class Plan
    # The cores Arena hands out. With more than one core the engine gets the last
    # one to itself and the server the rest, so the loader never steals the
    # server's CPU (and the pinning is recorded with every result).
    #
    # `--cpus shared` lifts the pinning: the server and the engine both run on
    # every core, as the published comparisons ran their servers (2 to 4 cores,
    # the loader beside them). A server that needs more than one core to show
    # its finding (workers against none) gets them, and the loader competes
    # with it; the engine's CPU share is measured with every result.
    Machine = Struct.new(:cores, :shared, keyword_init: true) do
      # The cores Arena started with (Etc.nprocessors reads 1 once it pinned itself).
      def self.current = new(cores: Support::Affinity::CORES, shared: false).freeze

      # The same machine with the cores handed out as MODE says.
      def with_cpus(mode)
        raise UsageError, "--cpus must be one of #{Plan::Machine::MODES.join(", ")}" unless Plan::Machine::MODES.include?(mode)
        self.class.new(cores: cores, shared: mode == "shared").freeze
      end

      def cpus_mode = shared ? "shared" : "pinned"

      def pinned? = cores > 1 && !shared

      def server_cores = pinned? ? cores - 1 : cores

      def server_cpus = if pinned?
                          (server_cores == 1) ? "0" : "0-#{cores - 2}"
                        end

      def engine_cpus = pinned? ? (cores - 1).to_s : nil

      # Default sizing: as many workers as the server's cores, but at least two,
      # so a prefork server can overlap one slow request with another.
      def default_workers = [server_cores, 2].max

      def to_h = {cores: cores, cpus: cpus_mode, server_cpus: server_cpus, engine_cpus: engine_cpus}
    end

    # How --cpus hands out the cores.
    Plan::Machine::MODES = %w[pinned shared].freeze
  end
end
