# frozen_string_literal: true

module Arena
  class Verify
    class HttpProbe
      # What a probe raises: the parser's framing findings and the probe's own.
      class Failure < StandardError; end

      # A response that ended before its Content-Length: a framing finding.
      class Truncated < Failure; end

      # One HTTP/1.x response, parsed as its bytes arrive: every byte is looked
      # at a bounded number of times (no re-scan of the buffer on each read, no
      # backtracking regex), so a 32 MiB body costs what its copy costs, and
      # the probe's deadline is checked between reads. Limits: the header
      # section (and trailers, and chunk-size lines) at HEAD_LIMIT, as the
      # engine's HP_MAX_HEADER_BYTES; the body at body_limit.
      #
      # Framing follows the engine's parser (ext/arena_load/parser.c), which the
      # corpus test checks on the same inputs: lines end in LF or CRLF; 1xx
      # interim responses are skipped; 101, 204, 304 and HEAD have no body;
      # the final Transfer-Encoding coding decides chunked, another coding
      # means "until close"; else Content-Length, else until close.
      class Parser
        HEAD_LIMIT = 64 * 1024
        BODY_LIMIT = 256 * 1024 * 1024
        MAX_SIZE = 1 << 60
        FRAMING = %w[content-length transfer-encoding connection].freeze # the engine's MAX_CHUNK: larger sizes are refused
        BAD_NAME = /[\x00-\x20\x7f]/ # the engine's rule: no white space or control character

        attr_reader :status, :headers, :body, :chunked

        def initialize(head: false, body_limit: BODY_LIMIT)
          @head_request = head
          @body_limit = body_limit
          @buf = "".b
          @pos = 0
          @scan = 0 # where the search for the next LF resumes
          @body = "".b
          @head_bytes = 0
          @state = :status
        end

        def done? = @state == :done

        def started? = @state != :status || !@buf.empty?

        # Takes the next bytes read; raises Failure on a malformed response.
        def <<(data)
          @buf << data.b
          until @state == :done
            before = [@state, @pos]
            step
            break if [@state, @pos] == before
          end
          compact
          self
        end

        # The peer closed: a body delimited by the close ends here.
        def eof!
          @state = :done if @state == :until_close
          return self if done?
          raise Truncated, "Content-Length #{@length} but #{@body.bytesize} body bytes" if @state == :length
          raise Failure, started? ? "connection closed mid-response (#{@state.to_s.tr("_", " ")})" : "connection closed without a response"
        end

        private

        def step
          case @state
          when :status then (line = head_line) && status_line(line)
          when :headers then (line = head_line) && header_line(line)
          when :length then take_body(@left) && @left.zero? && @state = :done
          when :until_close then take_body(@buf.bytesize - @pos)
          when :chunk_size then (line = small_line) && chunk_size(line)
          when :chunk_data then take_body(@left) && @left.zero? && @state = :chunk_end
          when :chunk_end then (line = small_line) && (line.empty? ? (@state = :chunk_size) : fail!("expected CRLF after chunk data"))
          when :trailers then (line = small_line) && (@state = :done if line.empty?)
          end
        end

        # The next line without its LF (and one CR before it), or nil until
        # its LF has arrived. Only bytes not yet searched are searched.
        def next_line(limit)
          nl = @buf.index("\n", @scan)
          unless nl
            @scan = @buf.bytesize
            fail!(limit.last) if @buf.bytesize - @pos > limit.first
            return nil
          end
          line = @buf.byteslice(@pos, nl - @pos)
          @pos = @scan = nl + 1
          line.end_with?("\r") ? line.chop : line
        end

        # The whole header section (interim responses included) is bounded.
        def head_line
          start = @pos
          line = next_line([HEAD_LIMIT - @head_bytes, "header section too large"]) or return
          @head_bytes += @pos - start
          fail!("header section too large") if @head_bytes > HEAD_LIMIT
          line
        end

        # Chunk-size lines and trailers: bounded like the engine's header_bytes.
        def small_line
          line = next_line([HEAD_LIMIT, "chunk line or trailers too large"]) or return
          @small_bytes = (@state == :trailers) ? @small_bytes.to_i + line.bytesize : line.bytesize
          fail!("chunk line or trailers too large") if @small_bytes > HEAD_LIMIT
          line
        end

        def status_line(line)
          m = line.match(%r{\AHTTP/1\.([01]) (\d{3})(?:[ \r]|\z)}) or fail!("not an HTTP/1.x status line: #{line[0, 40].inspect}")
          @minor = m[1].to_i
          @status = m[2].to_i
          @headers = {}
          @length = nil
          @te = nil
          @state = :headers
        end

        def header_line(line)
          return end_of_headers if line.empty?
          return if line.start_with?(" ", "\t") # obsolete line folding: ignored, as the engine does
          name, sep, value = line.partition(":")
          fail!("empty header name") if !sep.empty? && name.empty?
          fail!("bad header name: #{name[0, 40].inspect}") if sep.empty? || name.match?(BAD_NAME)
          name = name.downcase
          # As the engine: a lone CR matters where it could hide framing.
          fail!("CR inside a header value") if value.include?("\r") && FRAMING.include?(name)
          value = value.sub(/\A[ \t]+/, "").sub(/[ \t]+\z/, "")
          case name
          when "content-length" then content_length(value)
          when "transfer-encoding" then transfer_encoding(value)
          end
          @headers[name] = @headers.key?(name) ? "#{@headers[name]}, #{value}" : value
        end

        def content_length(value)
          fail!("empty Content-Length") if value.empty?
          fail!("bad Content-Length: #{value[0, 40].inspect}") unless value.match?(/\A\d+\z/)
          n = value.to_i
          fail!("Content-Length too large") if n / 10 > MAX_SIZE / 10
          fail!("conflicting Content-Length") if @length && @length != n
          @length = n
        end

        # The final coding of the list decides; "identity" is no coding.
        def transfer_encoding(value)
          codings = value.split(",").map { |e| e.split(";", 2).first.strip.downcase }.reject(&:empty?) - ["identity"]
          @te = (codings.last == "chunked") unless codings.empty?
        end

        def end_of_headers
          @chunked = @te == true
          if @status.between?(100, 199) && @status != 101
            @interim = true
            @headers = nil
            return @state = :status
          end
          @state = if @head_request || [101, 204, 304].include?(@status) then :done
          elsif @te == true then :chunk_size
          elsif !@te.nil? then :until_close
          elsif @length then @left = @length
                             @length.zero? ? :done : :length
          else :until_close
          end
        end

        def chunk_size(line)
          hex = line[/\A\h+/] or fail!("bad chunk size: #{line[0, 20].inspect}")
          rest = line.byteslice(hex.bytesize..)
          fail!("bad chunk size: #{line[0, 20].inspect}") unless rest.empty? || rest.start_with?(";", " ", "\t")
          size = hex.to_i(16)
          fail!("chunk size too large") if size / 16 >= MAX_SIZE
          return @state = :trailers if size.zero?
          fail!("body larger than #{@body_limit} bytes") if @body.bytesize + size > @body_limit
          @left = size
          @state = :chunk_data
        end

        # Up to `wanted` bytes of body from what has arrived.
        def take_body(wanted)
          n = [wanted, @buf.bytesize - @pos].min
          return false if n <= 0 && wanted.positive?
          fail!("body larger than #{@body_limit} bytes") if @body.bytesize + n > @body_limit
          @body << @buf.byteslice(@pos, n)
          @pos += n
          @scan = @pos
          @left -= n if @left
          true
        end

        # Consumed bytes are dropped once they are many: the buffer holds
        # at most one unfinished line or one read.
        def compact
          return if @pos < 65_536 && @pos < @buf.bytesize
          @buf = @buf.byteslice(@pos..) || "".b
          @scan -= @pos
          @pos = 0
        end

        def fail!(why) = raise(Failure, why)
      end
    end
  end
end
