# frozen_string_literal: true

module Arena
  module Launch
    # Keeps a server's log under a size while the server writes it: an app that
    # logs every request wrote about 2 MB per 5 s run. The start (boot lines)
    # and the end (what a failure needs: Launch::LocalServer's log tail) are kept; the
    # middle is cut and a line says how much. The server holds the file open
    # for appending (O_APPEND), so its next write lands at the new end; lines
    # written while a cut is made may be lost with the middle.
    class LogCap
      MARK = "[arena: %d bytes of this log were cut here to keep it under %d KiB]\n"

      attr_reader :max_bytes, :head_bytes, :tail_bytes

      def initialize(max_bytes: 1024 * 1024, head_bytes: 64 * 1024, tail_bytes: 256 * 1024, interval: 1.0)
        @max_bytes = max_bytes
        @head_bytes = head_bytes
        @tail_bytes = tail_bytes
        @interval = interval
      end

      # Watches path on a thread until the returned thread is killed.
      def watch(path)
        Thread.new do
          loop do
            sleep @interval
            trim(path)
          end
        end
      end

      # Cuts the middle of the file when it is over max_bytes; returns the
      # bytes cut (0 when under).
      def trim(path)
        size = File.size?(path).to_i
        return 0 if size <= @max_bytes
        File.open(path, "r+") do |file|
          head = line_end(file, @head_bytes)
          tail_from = line_start(file, size - @tail_bytes)
          file.seek(tail_from)
          tail = file.read
          file.truncate(head)
          cut = tail_from - head
          File.open(path, "a") { |out| out.write(format(MARK, cut, @max_bytes / 1024), tail) }
          cut
        end
      rescue Errno::ENOENT
        0
      end

      private

      # The offset just after the first newline at or past offset.
      def line_end(file, offset)
        file.seek(offset)
        rest = file.gets
        offset + rest.to_s.bytesize
      end

      # The offset just after the last newline before offset (a whole line).
      def line_start(file, offset)
        line_end(file, [offset, 0].max)
      end
    end
  end
end
