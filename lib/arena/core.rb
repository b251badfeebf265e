# frozen_string_literal: true

require "time"

module Arena
  # The checkout or gem Arena runs from.
  ROOT = File.expand_path("../..", __dir__)

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
