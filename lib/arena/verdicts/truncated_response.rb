# frozen_string_literal: true

require_relative "verdict"

module Arena
  module Verdicts
    # A known server fault, named apart from Arena's errors: Puma 8 (seen on
    # 8.0.2) now and then sends a keep-alive response without its first bytes
    # (the status line and the first header), so the client reads a response
    # that starts mid-header. The thread that hands a ready keep-alive
    # connection to another thread resets the connection's write buffer in
    # its `ensure` while the other may already be writing the next response
    # into it (docs/puma-truncated-response.md, reproduced there with a Ruby
    # socket client and with wrk). The engine counts such a response in
    # errors.parse and describes the first one in its log; Load::EngineRun keeps
    # that line in the engine's document as "first_unparsable".
    module TruncatedResponse
      WORD = "server-fault"
      DOC = "docs/puma-truncated-response.md"
      # conn.c's tell_parse_error line: where the parser stopped and the bytes around it.
      LINE = /unparsable response \((?<why>[^)]*)\) at byte (?<at>\d+) of a \d+-byte read, .*; bytes from (?<from>\d+): (?<bytes>.*)\z/
      # A header field where a status line belongs ("content-length: 13\r\n").
      HEADER_FIRST = /\A[A-Za-z][A-Za-z0-9-]*: [^\r\n]*\r\n/

      extend self

      # The bytes of the unparsable response, from where it began, decoded
      # from the engine's escaping (\xNN); nil for a line of another shape.
      def response_bytes(line)
        m = LINE.match(line) or return nil
        bytes = m[:bytes].gsub(/\\x(\h\h)/) { Regexp.last_match(1).hex.chr }.b
        bytes.byteslice(m[:at].to_i - m[:from].to_i..) || "".b
      end

      # server: the adapter's key; parse_errors: the engine's errors.parse;
      # line: its first_unparsable. A Verdict naming the fault, or nil when
      # the errors are not (or not known to be) this one.
      def verdict(server:, parse_errors:, line:)
        return nil unless server == "puma" && parse_errors.to_i.positive?
        bytes = response_bytes(line) or return nil
        return nil unless bytes.match?(HEADER_FIRST)
        first = bytes[HEADER_FIRST].chomp.dump
        Verdicts::Verdict.of(WORD, "#{parse_errors} #{(parse_errors == 1) ? "response" : "responses"} could not be parsed; the first " \
          "began mid-header (#{first}), without its status line: Puma's truncated response, a fault of Puma's keep-alive " \
          "hand-off between threads, not Arena's (#{DOC}; one thread per worker avoids it)")
      end
    end
  end
end
