# frozen_string_literal: true

require "etc"

module Arena
  # The cores Arena hands out. With more than one core the engine gets the last
  # one to itself and the server the rest, so the loader never steals the
  # server's CPU (and the pinning is recorded with every result).
  Machine = Struct.new(:cores, keyword_init: true) do
    def self.current = new(cores: Etc.nprocessors).freeze

    def pinned? = cores > 1

    def server_cores = pinned? ? cores - 1 : cores

    def server_cpus = if pinned?
                        (server_cores == 1) ? "0" : "0-#{cores - 2}"
                      end

    def engine_cpus = pinned? ? (cores - 1).to_s : nil

    # Default sizing: as many workers as the server's cores, but at least two,
    # so a prefork server can overlap one slow request with another.
    def default_workers = [server_cores, 2].max

    def to_h = {cores: cores, server_cpus: server_cpus, engine_cpus: engine_cpus}
  end
end
