# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Puma's truncated response, named apart from Arena's errors: the engine's
# line about its first unparsable response, read by the rule.
class TruncatedResponseTest < Minitest::Test
  cover "Arena::Verdicts::TruncatedResponse*"

  OK = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 13\r\n\r\nHello, World!"
  CUT = "content-length: 13\r\n\r\nHello, World!"

  # The engine's own line (conn.c's tell_parse_error), escaped as it escapes.
  def line(read, at, why: "bad status line")
    from = [at - 80, 0].max
    bytes = read.byteslice(from, 160).each_char.map { |c| (c.ord.between?(0x20, 0x7e) && c != "\\") ? c : format("\\x%02x", c.ord) }.join
    "arena-load: unparsable response (#{why}) at byte #{at} of a #{read.bytesize}-byte read, after 41 responses on the connection; " \
      "bytes from #{from}: #{bytes}"
  end

  def test_a_puma_response_that_begins_mid_header_is_named_as_pumas_fault
    v = Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 1, line: line(OK + CUT, OK.bytesize))
    assert_equal "server-fault", v.word
    assert_equal "1 response could not be parsed; the first began mid-header (\"content-length: 13\"), without its status " \
      "line: Puma's truncated response, a fault of Puma's keep-alive hand-off between threads, not Arena's " \
      "(docs/puma-truncated-response.md; one thread per worker avoids it)", v.reason
    assert_match(/\A3 responses could not/, Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 3, line: line(CUT, 0)).reason)
  end

  def test_the_bytes_are_read_from_where_the_response_began_through_the_escaping
    assert_equal CUT.b, Arena::Verdicts::TruncatedResponse.response_bytes(line(OK + CUT, OK.bytesize))
    long = ("x" * 100) + CUT
    assert_equal CUT.b, Arena::Verdicts::TruncatedResponse.response_bytes(line(long, 100)), "bytes from at - 80"
    assert_equal "a\\b".b, Arena::Verdicts::TruncatedResponse.response_bytes(line("a\\b", 0))
    assert_equal "content-type: x\xFF\r\n".b, Arena::Verdicts::TruncatedResponse.response_bytes(line("content-type: x\xFF\r\n".b, 0)),
      "a byte above 0x7f, decoded as a byte"
    cut_short = line(CUT, 0).sub("at byte 0 ", "at byte 500 ").sub("bytes from 0:", "bytes from 300:")
    assert_equal "".b, Arena::Verdicts::TruncatedResponse.response_bytes(cut_short), "the line shows fewer bytes than the error's offset"
    assert_nil Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 1, line: cut_short)
    assert_nil Arena::Verdicts::TruncatedResponse.response_bytes("arena-load: something else")
    assert_nil Arena::Verdicts::TruncatedResponse.response_bytes(nil)
  end

  def test_other_errors_and_other_servers_are_not_named
    assert_nil Arena::Verdicts::TruncatedResponse.verdict(server: "unicorn", parse_errors: 1, line: line(CUT, 0)), "another server"
    assert_nil Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 0, line: line(CUT, 0)), "no parse error"
    assert_nil Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: nil, line: line(CUT, 0))
    assert_nil Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 1, line: nil), "no line kept"
    assert_nil Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 1, line: line("HTTP/1.1 2x0 OK\r\n\r\n", 0)), "a status line, broken otherwise"
    assert_nil Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 1, line: line("garbage\r\n\r\n", 0)), "not a header"
    assert_nil Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 1, line: line("content-length: 13", 0)), "a header cut short"
  end

  def test_the_summary_flags_it_and_keeps_the_reason
    load = Arena::Results::LoadFigures.from_h({"requests" => {"completed" => 100}, "errors" => {"total" => 1, "parse" => 1}, "duration_s" => 1.0})
    fault = Arena::Verdicts::TruncatedResponse.verdict(server: "puma", parse_errors: 1, line: line(CUT, 0))
    summary = Arena::Results::Summary.of(load, fault: fault)
    assert_includes summary.flags, "server-fault"
    assert_equal fault.reason, summary.to_record["fault"]
    assert_equal summary, Arena::Results::Summary.from_h(summary.to_record)
    plain = Arena::Results::Summary.of(load)
    refute_includes plain.flags, "server-fault"
    refute plain.to_record.key?("fault")
  end
end
