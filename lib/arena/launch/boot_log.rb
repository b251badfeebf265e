# frozen_string_literal: true

module Arena
  # A server's log read as it grows during boot, from where this start
  # began (a restarted server appends to the log of the one before it: a
  # worker Arena killed on purpose must not read as a crash of the next),
  # for the line CrashLine says ends the wait.
  class BootLog
    CHUNK = 256 * 1024

    def initialize(path, patterns: CrashLine::GENERIC)
      @path = path
      @patterns = patterns
      @offset = File.size?(path).to_i
      @partial = +""
      @crash = @last_words = nil
    end

    # The crash line once one has been written, else nil. Reads only what
    # was added since the last call; a line still being written waits,
    # unless the server has exited (final: its last words need no newline).
    # Once it has exited, an uncaught exception explains the exit
    # (CrashLine::LAST_WORDS) when no crash line does.
    def crash(final: false)
      unless @crash
        lines = new_lines(final)
        @crash = CrashLine.find(lines, patterns: @patterns)
        @last_words ||= CrashLine.find(lines, patterns: CrashLine::LAST_WORDS)
      end
      @crash || (@last_words if final)
    end

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

    # LogCap may have cut the file under us: then read its end again.
    def read_from(file)
      @offset = [file.size - CHUNK, 0].max if file.size < @offset
      file.seek(@offset)
      text = file.read(CHUNK)
      @offset += text.to_s.bytesize
      text
    end
  end
end
