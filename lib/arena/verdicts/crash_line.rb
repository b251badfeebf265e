# frozen_string_literal: true

module Arena
  module Verdicts
    # The line of a server's boot log that says it cannot run: read while
    # Arena waits for the server to answer, so a crash ends the wait at once
    # with its cause, not 30 s later with "not ready". Seen: uWSGI's workers
    # segfaulting at boot on a Rails 7.2 app while its HTTP router kept
    # accepting connections, twice, 30 s each.
    #
    # A pure rule over lines (no file, no clock): the caller reads the log.
    module CrashLine
      # What any server's log may say when it cannot run. Each is a line no
      # healthy boot writes.
      GENERIC = [
        /\[BUG\]/, # Ruby's VM crashed (a segfault in a C extension, an assertion)
        /segmentation fault/i, # uWSGI's "got Segmentation Fault", glibc's, a C server's
        /Address already in use/, # EADDRINUSE: another listener holds the address
        /DAMN ! worker \d+ \(pid: \d+\)/, # uWSGI: a worker died ("died", "MISTERIOUSLY killed")
        /reaped #<Process::Status: pid \d+ (exit [1-9]|SIG)/, # Unicorn, Pitchfork: a worker failed
        /Child worker \(\d+\) crashed/ # Iodine (facil.io)
      ].freeze

      # What explains an exit, though it ends no wait by itself: the first
      # line of an exception Ruby did not catch. A server that logs one it
      # rescued carries on, and must not be stopped for it.
      # An exception raised inside a gem or Ruby's own library (rack's
      # builder evaluating a config.ru with a syntax error) is said without that
      # frame: the user's file and line are in its message, and a gem's path
      # reads like a stack trace of Arena's own.
      LAST_WORDS = [
        %r{\A\S*/(?:gems|ruby)/\S*:\d+:in [`'][^']*': (?<said>.+\([A-Z]\w*(?:::[A-Z]\w*)*\))\z},
        /:\d+:in [`'].*\([A-Z]\w*(::[A-Z]\w*)*\)\z/ # "config.ru:1:in `<main>': boom (RuntimeError)"
      ].freeze

      # Colour codes some servers put around their log levels.
      ANSI = /\e\[[0-9;]*m/

      LONGEST = 300

      # The first line matching any pattern, without colour codes, trailing
      # space or more than LONGEST characters; nil when none does. A pattern
      # with named groups says only what they caught, joined by ": " (the
      # class and message of an exception inside a line of JSON).
      def self.find(lines, patterns: GENERIC)
        lines.each do |line|
          text = line.to_s.scrub.gsub(ANSI, "").strip
          patterns.each do |pattern|
            match = pattern.match(text) or next
            said = match.names.empty? ? text : match.captures.join(": ")
            return said[0, LONGEST]
          end
        end
        nil
      end
    end
  end
end
