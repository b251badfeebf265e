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

      # Ruby's crash line, "FILE:LINE: [BUG] WHAT": said "[BUG] WHAT (FILE:LINE)"
      # with FILE from its gem's directory on, so that a line cut short still
      # says what happened ("/var/lib/gems/3.1.0/gems/" alone is 25 columns).
      RUBY_BUG = /\A(?<where>\S+:\d+): (?<what>\[BUG\] .+)\z/

      def self.bug_first(said)
        bug = RUBY_BUG.match(said) or return said
        "#{bug[:what]} (#{bug[:where].sub(%r{\A\S*/gems/}, "")})"
      end

      # Colour codes some servers put around their log levels.
      ANSI = /\e\[[0-9;]*m/

      LONGEST = 300

      # Ruby's crash report: a "-- NAME ----" header opens each section after
      # the [BUG] line; the Ruby backtrace is the one a person reads.
      SECTION = /\A-- (?<name>.+?) -{3,}\z/
      RUBY_FRAMES = "Ruby level backtrace information"
      # The last section: loaded features and the memory map, several hundred
      # lines of these shapes (and blank ones), after which the log goes on.
      RUNTIME = "Other runtime information"
      RUNTIME_LINE = /\A(\s*\z|\* |\s+\d+ \S|\h+-\h+ [r-][w-][x-][ps-] )/
      FRAMES_KEPT = 5
      CUT = "(Ruby's crash report, cut here: its other frames, registers, C backtrace and memory map are in the log)"

      # A log's lines as a person reads them: each Ruby crash report cut to
      # its [BUG] line and the deepest FRAMES_KEPT frames of its Ruby
      # backtrace, since its control frames, registers, C backtrace, loaded
      # features and memory map (hundreds of lines) would fill any tail.
      # Lines outside a report are kept as they are. `lines` are the log's
      # (strings, which may hold invalid bytes or end in CR).
      def self.readable(lines)
        out = []
        section = frames = nil
        lines.each do |line|
          text = line.scrub.strip
          if section.nil?
            out << line
            section = "" if text.include?("[BUG]")
          elsif (header = SECTION.match(text))
            section = header[:name]
            frames = [] if section == RUBY_FRAMES
          elsif section == RUBY_FRAMES
            frames << line unless text.empty?
          elsif section == RUNTIME && !RUNTIME_LINE.match?(line.scrub)
            out.concat(Array(frames).last(FRAMES_KEPT)) << CUT << line
            section = frames = nil
          end
        end
        section.nil? ? out : out.concat(Array(frames).last(FRAMES_KEPT)) << CUT
      end

      # Where a recorded failure (Launch::Session#fail, LocalServer::Failed)
      # puts the crash line it read: "its log: LINE; ...", "... crashed during
      # boot: LINE", "... exited during boot (HOW): LINE".
      RECORDED = /(?:\Aits log|crashed during boot): (?<line>.+?)(?:; |\z)/
      EXITED = /exited during boot(?: again)? \((?:killed by signal (?<signal>\d+)|[^)]*)\)(?:: (?<line>.+))?\z/
      # The signals a process dies of when it crashes (not TERM, INT or KILL, which someone sent).
      CRASH_SIGNALS = %w[SEGV BUS ABRT ILL FPE].freeze
      # A crash line that is not the server's: another listener held the address.
      NOT_A_CRASH = /Address already in use/

      # The crash a recorded failure's message says, or nil when it says none
      # (an exception of the app's, a timeout): the crash line, or the fatal
      # signal the server died of ("killed by signal 11 (SIGSEGV)").
      def self.recorded(error)
        text = error.to_s
        line = RECORDED.match(text)&.[](:line)
        exited = EXITED.match(text)
        line ||= exited[:line] if exited && find([exited[:line]])
        return line if line && !line.match?(NOT_A_CRASH)
        name = exited && exited[:signal] && Signal.signame(exited[:signal].to_i)
        "killed by signal #{exited[:signal]} (SIG#{name})" if CRASH_SIGNALS.include?(name)
      end

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
            return bug_first(said)[0, LONGEST]
          end
        end
        nil
      end
    end
  end
end
