# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

class VerifyTest < Minitest::Test
  Canned = Struct.new(:raw) do
    def request(*, **) = Arena::Verify::HttpProbe.parse(raw)
  end

  def outcome(workload, raw, bind: Arena::System::Bind.tcp(port: 1))
    Arena::Verify.new(bind: bind, probe: Canned.new(raw)).check(Arena::Plan::Workloads.builtin.fetch(workload))
  end

  def test_right_primes_answer_passes
    o = outcome("primes", "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 7\r\n\r\n3682913")
    assert o.ok, o.problems.inspect
  end

  def test_each_rule_reports_what_is_wrong
    o = outcome("primes", "HTTP/1.1 500 Oops\r\ncontent-type: text/html\r\n\r\n42")
    assert_equal [
      "status 500, expected 200",
      "Content-Type \"text/html\" does not match /\\Atext\\/plain/",
      "neither Content-Length nor chunked encoding, and no Connection: close",
      "sum of the first 1000 primes is 3682913, got \"42\""
    ], o.problems
  end

  def test_length_that_lies_is_caught
    o = outcome("json", "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 99\r\n\r\n{\"message\":\"Hello, World!\"}")
    assert_equal ["Content-Length 99 but 27 body bytes"], o.problems
  end

  def test_stream_may_be_close_delimited_only_when_announced
    body = (0..4).map { |i| "chunk #{i}\n" }.join
    closed = outcome("stream", "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n#{body}")
    assert closed.ok, closed.problems.inspect
    silent = outcome("stream", "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n#{body}")
    assert_equal ["expected a chunked (or announced close-delimited) response"], silent.problems
  end

  def test_ip_must_be_loopback_over_tcp
    o = outcome("ip", "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 8\r\n\r\n10.0.0.1")
    assert_equal ["REMOTE_ADDR is \"10.0.0.1\", expected a loopback address"], o.problems
  end
end
