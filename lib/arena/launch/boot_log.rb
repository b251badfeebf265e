# frozen_string_literal: true

require_relative "../verdicts/crash_line"

module Arena
  module Launch
    # A server's log read as it grows during boot, from where this start
    # began (a restarted server appends to the log of the one before it: a
    # worker Arena killed on purpose must not read as a crash of the next),
    # for the line Verdicts::CrashLine says ends the wait, and the line the adapter
    # names as its own start timing out (transient: Servers::Base#transient_boot_patterns).
    class BootLog
      CHUNK = 256 * 1024

      def initialize(path, patterns: Verdicts::CrashLine::GENERIC, transient: [])
        @path = path
        @patterns = patterns
        @transient_patterns = transient
        @offset = File.size?(path).to_i
        @partial = +""
        @crash = @last_words = @transient = nil
      end

      # The crash line once one has been written, else nil. Reads only what
      # was added since the last call; a line still being written waits,
      # unless the server has exited (final: its last words need no newline).
      # Once it has exited, an uncaught exception explains the exit
      # (Verdicts::CrashLine::LAST_WORDS) when no crash line does.
      def crash(final: false)
        unless @crash
          lines = new_lines(final)
          @crash = Verdicts::CrashLine.find(lines, patterns: @patterns)
          @last_words ||= Verdicts::CrashLine.find(lines, patterns: Verdicts::CrashLine::LAST_WORDS)
          @transient ||= Verdicts::CrashLine.find(lines, patterns: @transient_patterns)
        end
        @crash || (@last_words if final)
      end

      # The line (of those crash has read) that says the server's own start
      # timed out; nil when none did, or when a crash line was read: a crash
      # is never a reason to start again.
      def transient = @crash ? nil : @transient

      private

      def new_lines(final)
        text = File.open(@path, "rb") { |f| read_from(f) }.to_s
        @partial << text
        *whole, rest = @partial.split("\n", -1)
        @partial = final ? +"" : +rest.to_s
        final ? [*whole, rest] : whole
      rescue SystemCallError
        []
      end

      # Launch::LogCap may have cut the file under us: then read its end again.
      def read_from(file)
        @offset = [file.size - CHUNK, 0].max if file.size < @offset
        file.seek(@offset)
        text = file.read(CHUNK)
        @offset += text.to_s.bytesize
        text
      end
    end
  end
end
