# frozen_string_literal: true

require "rbconfig"

module Arena
  module System
    # Arena's dead-man switch. PR_SET_PDEATHSIG reaches one child, not a
    # process group, and not a server's workers; so the first group Arena
    # starts also starts this small process, which holds the read end of a
    # pipe whose write end only Arena has. Every group is announced to it
    # ("+PGID") and withdrawn once stopped ("-PGID"). When the pipe reads EOF,
    # Arena is gone however it died (SIGKILL included): the watchdog sends TERM,
    # then KILL, to every group still announced, and exits.
    #
    # It is the one process not spawned through System::ProcessGroup#start: it must
    # outlive Arena, in a group of its own, untouched by a Ctrl-C to Arena's.
    module Watchdog
      MAIN = File.expand_path("watchdog_main.rb", __dir__)
      LOCK = Mutex.new

      class << self
        attr_reader :pid

        def watch(pgid) = tell("+#{pgid}\n")

        def forget(pgid) = @io && tell("-#{pgid}\n")

        private

        # One write(2) of a few bytes to a pipe is atomic: no lock is needed
        # here, which matters because a stop can run inside a trap handler.
        def tell(line)
          io = @io || start
          io&.syswrite(line)
        rescue IOError, SystemCallError
          @io = nil # the watchdog is gone: nothing more to tell it
        end

        def start
          LOCK.synchronize do
            return @io if @io
            reader, writer = IO.pipe
            # A bare environment: it needs nothing, and carries no run's marks.
            @pid = Process.spawn({}, [RbConfig.ruby, "arena-watchdog"], "--disable-gems", MAIN, in: reader,
              out: File::NULL, err: File::NULL, pgroup: true, close_others: true, unsetenv_others: true)
            Process.detach(@pid)
            reader.close
            writer.sync = true
            @io = writer
          end
        rescue SystemCallError
          nil # no watchdog: Arena's own at_exit and ensure still stop what they can
        end
      end
    end
  end
end
