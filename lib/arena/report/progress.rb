# frozen_string_literal: true

module Arena
  module Report
    # The one line a run shows while it measures: what it is doing (a
    # server started, measuring), the round, the server just measured, how
    # many measurements of how many, and the time left at the pace so far.
    # On a terminal it is rewritten in place (\r) at every step; into a file
    # or a CI log it is a plain line when a round begins, and no other, so a
    # log has at most one line a round. A line that must stand on its own (a
    # failure) goes above it.
    #
    # The stream and the clock are passed in, so any command's reporter can
    # use it and a test can read every byte it writes.
    class Progress
      def initialize(io:, total:, rounds:, tty: io.tty?, clock: Support::Clock.method(:now), width: nil)
        @io = io
        @total = [total.to_i, 1].max
        @rounds = rounds
        @tty = tty
        @clock = clock
        @width = width
        @done = 0
        @reruns = 0
        @drawn = nil
      end

      # One measurement is done: of `server` (a label), in `round` (nil when
      # the run has no rounds). A rerun (the noise probe found the machine
      # busy, and the unit ran again in its round) adds to the total: it was
      # not planned, and counting it against the plan read "132 planned, then
      # rounds for --precision" in a run with no --precision.
      def step(server:, round:, rerun: false)
        now = @clock.call
        @first ||= now
        @done += 1
        if rerun
          @total += 1
          @reruns += 1
        end
        new_round = round != @round || @done == 1
        @round = round
        @server = server
        @phase = "measuring"
        if @tty
          draw(text(now))
        elsif new_round
          @io.puts text(now)
        end
      end

      # What the run is doing between measurements ("started puma"): on a
      # terminal the line says it at once; a log waits for the round's line.
      def phase(words)
        @phase = words
        draw(text(@clock.call)) if @tty
      end

      # A line of its own, above the progress line.
      def say(line)
        return @io.puts(line) unless @drawn
        @io.print "\r\e[K#{line}\n"
        draw(@drawn)
      end

      # The progress line leaves the screen: what follows starts on a clean line.
      def finish
        return unless @drawn
        @io.print "\r\e[K"
        @drawn = nil
      end

      def text(now)
        parts = [@phase || "starting"]
        parts << "round #{@round}#{"/#{@rounds}" if @rounds && @round <= @rounds}" if @round
        parts << @server if @server
        parts << ((@done > @total) ? "#{@done} measured (#{@total} planned, then rounds for --precision)" : "#{@done}/#{@total} measured")
        parts << "#{@reruns} re-run (busy machine)" if @reruns.positive?
        left = seconds_left(now)
        parts << "about #{Progress.duration(left)} left" if left
        "arena: #{parts.join(" · ")}"
      end

      # "45s", "3m05s", "1h02m"
      def self.duration(seconds)
        s = seconds.round
        return "#{s}s" if s < 60
        return format("%dm%02ds", s / 60, s % 60) if s < 3600
        format("%dh%02dm", s / 3600, (s % 3600) / 60)
      end

      private

      # The pace between the first measurement's end and this one's: what
      # came before the first (boots, warm-ups) is not a measurement's cost.
      def seconds_left(now)
        return nil if @done < 2 || @done >= @total
        (now - @first) / (@done - 1) * (@total - @done)
      end

      def draw(line)
        @drawn = line
        @io.print "\r\e[K#{fit(line)}"
        @io.flush
      end

      # A line wider than the terminal would wrap, and \r would then rewrite
      # only its last part.
      def fit(line)
        width = @width || columns
        (width.positive? && line.size >= width) ? "#{line[0, width - 2]}…" : line
      end

      def columns
        @io.respond_to?(:winsize) ? @io.winsize[1].to_i : 0
      rescue SystemCallError
        0
      end
    end
  end
end
