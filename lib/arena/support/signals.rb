# frozen_string_literal: true

require "monitor"

module Arena
  module Support
    # Holds INT and TERM while a block runs that must not be cut in two (a
    # spawn and the recording of its pid; a stop), then delivers them again to
    # this process, to whatever handler was there before. Ruby's
    # Thread.handle_interrupt does not hold signals, so this swaps the traps.
    module Signals
      HELD = %w[INT TERM].freeze
      LOCK = Monitor.new

      def self.deferred
        # Inside a trap handler Ruby allows no lock (ThreadError): run as is.
        begin
          LOCK.mon_enter
        rescue ThreadError
          return yield
        end
        begin
          return yield if @depth.to_i.positive?
          hold { yield }
        ensure
          LOCK.mon_exit
        end
      end

      def self.hold
        caught = []
        previous = HELD.to_h { |sig| [sig, trap(sig) { caught << sig }] }
        @depth = 1
        yield
      ensure
        @depth = 0
        previous&.each { |sig, handler| trap(sig, handler || "DEFAULT") }
        caught.uniq.each { |sig| Process.kill(sig, Process.pid) }
      end
    end
  end
end
