# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"
require "timeout"

class HttpProbeTest < Minitest::Test
  def test_content_length_body
    r = Arena::Verify::HttpProbe.parse("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
    assert_equal [200, "hello", "text/plain", false], [r.status, r.body, r["Content-Type"], r.chunked]
  end

  def test_chunked_body_with_extensions_and_trailers
    raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: y\r\n\r\n"
    r = Arena::Verify::HttpProbe.parse(raw)
    assert_equal "hello world", r.body
    assert r.chunked
  end

  def test_not_http_is_a_failure
    assert_raises(Arena::Verify::HttpProbe::Failure) { Arena::Verify::HttpProbe.parse("SSH-2.0-OpenSSH\r\n") }
  end
end

# The probe against hostile or huge responses from a real socket: bounded
# time, bounded memory, one clean Failure; and nothing injected into what
# it sends.
class HttpProbeHardeningTest < Minitest::Test
  # A one-connection server: reads the request head, writes `reply` (a
  # string or a lambda of the socket), keeps the socket open until the test ends.
  def serve(reply)
    server = TCPServer.new("127.0.0.1", 0)
    @received = Queue.new
    @thread = Thread.new do
      client = server.accept
      head = +""
      head << client.readpartial(4096) until head.include?("\r\n\r\n")
      @received << head
      reply.respond_to?(:call) ? reply.call(client) : client.write(reply)
      sleep 30
    rescue IOError, SystemCallError
      nil
    ensure
      client&.close
      server.close
    end
    Arena::System::Bind.new(kind: :tcp, host: "127.0.0.1", port: server.addr[1]).freeze
  end

  # A listener that accepts and then says nothing.
  def serve_silently
    server = TCPServer.new("127.0.0.1", 0)
    @thread = Thread.new do
      client = server.accept
      sleep 30
    ensure
      client&.close
      server.close
    end
    server
  end

  def teardown = @thread&.kill

  def timed
    started = Arena::Support::Clock.now
    yield
    Arena::Support::Clock.now - started
  end

  def test_repeated_zero_chunks_end_at_the_deadline_not_in_a_regex
    # The old completeness regex took 25 ms at 10 such chunks, x4 per chunk.
    bind = serve("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + "0\r\n\r\n" * 15 + "x")
    response = nil
    elapsed = timed { response = Arena::Verify::HttpProbe.new(bind, timeout: 1).get("/") }
    assert_equal "", response.body, "the first last-chunk ends the response"
    assert_operator elapsed, :<, 2.5
  end

  def test_a_32_mib_body_is_read_in_linear_time
    size = 32 * 1024 * 1024
    bind = serve(lambda do |c|
      c.write("HTTP/1.1 200 OK\r\nContent-Length: #{size}\r\n\r\n")
      32.times { c.write("x" * (1024 * 1024)) }
    end)
    response = nil
    elapsed = timed { response = Arena::Verify::HttpProbe.new(bind, timeout: 30).get("/") }
    assert_equal size, response.body.bytesize
    assert_operator elapsed, :<, 8, "32 MiB took #{elapsed.round(1)} s"
  end

  def test_the_same_body_chunked_in_4_kib_chunks
    bind = serve(lambda do |c|
      c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
      2048.times { c.write("1000\r\n#{"y" * 4096}\r\n") }
      c.write("0\r\n\r\n")
    end)
    response = nil
    elapsed = timed { response = Arena::Verify::HttpProbe.new(bind, timeout: 30).get("/") }
    assert_equal 8 * 1024 * 1024, response.body.bytesize
    assert_operator elapsed, :<, 8
  end

  def test_bad_sizes_are_clean_failures
    {
      "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nhello" => /bad Content-Length/,
      "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nhello" => /bad Content-Length/,
      "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n" => /too large/,
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!" => /conflicting/,
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n" => /bad chunk size/,
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffffffff\r\nhello\r\n0\r\n\r\n" => /chunk size too large/,
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX\r\n0\r\n\r\n" => /CRLF after chunk data/,
      "HTTP/1.1 200 OK\r\nX: #{"a" * 70_000}\r\n\r\n" => /header section too large/
    }.each do |raw, error|
      e = assert_raises(Arena::Verify::HttpProbe::Failure, raw[0, 80]) { Arena::Verify::HttpProbe.parse(raw) }
      assert_match error, e.message, raw[0, 80]
    end
  end

  def test_the_body_limit_holds_for_both_framings
    parser = Arena::Verify::HttpProbe::Parser.new(body_limit: 10)
    assert_raises(Arena::Verify::HttpProbe::Failure) { parser << "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\n" }
    parser = Arena::Verify::HttpProbe::Parser.new(body_limit: 10)
    assert_raises(Arena::Verify::HttpProbe::Failure) { parser << "HTTP/1.1 200 OK\r\n\r\n" << "x" * 11 }
  end

  def test_a_response_that_stops_half_way_fails_at_the_deadline
    bind = serve("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf")
    error = nil
    elapsed = timed { error = assert_raises(Arena::Verify::HttpProbe::Failure) { Arena::Verify::HttpProbe.new(bind, timeout: 0.3).get("/") } }
    assert_equal "no complete response within 0.3s", error.message
    assert_operator elapsed, :<, 1.5
  end

  # Over TLS, the response in two writes with a pause between: read with the
  # openssl gem Ruby 3.1 ships, whose SSLSocket has no wait_readable.
  def test_a_response_over_tls_that_arrives_in_two_writes
    dir = Dir.mktmpdir("arena-probe-tls")
    files = Arena::Launch::Certificates.write(dir: dir)
    ctx = OpenSSL::SSL::SSLContext.new
    ctx.cert = OpenSSL::X509::Certificate.new(File.read(files.cert))
    ctx.key = OpenSSL::PKey.read(File.read(files.key))
    tcp = TCPServer.new("127.0.0.1", 0)
    listener = OpenSSL::SSL::SSLServer.new(tcp, ctx)
    @thread = Thread.new do
      client = listener.accept
      client.sync = true
      head = +""
      head << client.readpartial(4096) until head.include?("\r\n\r\n")
      client.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe")
      sleep 0.2
      client.write("llo")
      sleep 30
    rescue IOError, SystemCallError, OpenSSL::SSL::SSLError
      nil
    ensure
      client&.close
      listener.close
    end
    bind = Arena::System::Bind.new(kind: :tcp, host: "127.0.0.1", port: tcp.addr[1], tls: files).freeze
    assert_equal "hello", Arena::Verify::HttpProbe.new(bind, timeout: 2).get("/").body
  ensure
    FileUtils.rm_rf(dir) if dir
  end

  # A TLS port whose server accepts and never answers: the handshake is
  # bounded by the probe's timeout, where it used to wait for ever.
  def test_a_tls_handshake_that_gets_no_answer_fails_at_the_deadline
    dir = Dir.mktmpdir("arena-probe-tls")
    files = Arena::Launch::Certificates.write(dir: dir)
    silent = serve_silently
    bind = Arena::System::Bind.new(kind: :tcp, host: "127.0.0.1", port: silent.addr[1], tls: files).freeze
    error = nil
    elapsed = timed do
      Timeout.timeout(5) { error = assert_raises(Arena::Verify::HttpProbe::Failure) { Arena::Verify::HttpProbe.new(bind, timeout: 0.3).get("/") } }
    end
    assert_equal "TLS handshake failed: no answer within 0.3s", error.message
    assert_operator elapsed, :<, 1.5
  ensure
    FileUtils.rm_rf(dir) if dir
  end

  def test_cr_or_lf_in_the_path_or_a_header_is_refused_before_sending
    bind = serve("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    probe = Arena::Verify::HttpProbe.new(bind, timeout: 2)
    assert_raises(Arena::Verify::HttpProbe::Failure) { probe.get("/a\r\nX-Injected: y") }
    assert_raises(Arena::Verify::HttpProbe::Failure) { probe.get("/", headers: {"X-A" => "1\r\nX-Injected: y"}) }
    assert_raises(Arena::Verify::HttpProbe::Failure) { probe.get("/", headers: {"X-A\nB" => "1"}) }
    assert probe.get("/", headers: {"Host" => "example.test"})
    head = @received.pop
    assert_equal ["Host: example.test"], head.lines.map(&:chomp).grep(/\Ahost:/i), "one Host header, the user's"
    refute_includes head, "X-Injected"
  end
end
