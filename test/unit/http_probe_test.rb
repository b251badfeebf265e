# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

class HttpProbeTest < Minitest::Test
  def test_content_length_body
    r = Arena::HttpProbe.parse("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
    assert_equal [200, "hello", "text/plain", false], [r.status, r.body, r["Content-Type"], r.chunked]
  end

  def test_chunked_body_with_extensions_and_trailers
    raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: y\r\n\r\n"
    r = Arena::HttpProbe.parse(raw)
    assert_equal "hello world", r.body
    assert r.chunked
  end

  def test_not_http_is_a_failure
    assert_raises(Arena::HttpProbe::Failure) { Arena::HttpProbe.parse("SSH-2.0-OpenSSH\r\n") }
  end
end
