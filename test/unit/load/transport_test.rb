# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

class TransportUnitTest < Minitest::Test
  def test_parse_and_engine_flags
    assert_equal [], Arena::Load::Transport.parse("http1").engine_flags
    assert_equal ["--cacert", "/ca.pem"], Arena::Load::Transport.parse("tls").engine_flags(ca: "/ca.pem")
    assert_equal %w[--http2 --h2-streams 8 --tls-resume --cacert /ca.pem],
      Arena::Load::Transport.parse("h2", h2_streams: 8, tls_resume: true).engine_flags(ca: "/ca.pem")
    assert_equal %w[--http2 --h2-streams 1], Arena::Load::Transport.parse("h2c").engine_flags(ca: "/ca.pem")
    assert_equal "h2c", Arena::Load::Transport.parse("h2c").protocol
    assert_equal "http/1.1", Arena::Load::Transport.parse("tls").protocol
  end

  def test_bad_combinations_are_usage_errors
    assert_raises(Arena::UsageError) { Arena::Load::Transport.parse("spdy") }
    e = assert_raises(Arena::UsageError) { Arena::Load::Transport.parse("tls", h2_streams: 4) }
    assert_equal "--h2-streams is for --transport h2 or h2c", e.message
    assert_raises(Arena::UsageError) { Arena::Load::Transport.parse("h2c", tls_resume: true) }
  end

  def test_a_bind_over_tls
    bind = Arena::System::Bind.tcp(port: 8443).with_tls(:self_signed)
    assert_equal "https://127.0.0.1:8443/x", bind.target("/x")
    assert_nil bind.ca
    assert_equal({kind: "tcp", host: "127.0.0.1", port: 8443, tls: true}, bind.to_h)
    assert_equal({kind: "tcp", host: "127.0.0.1", port: 8443}, Arena::System::Bind.tcp(port: 8443).to_h)
  end

  def test_who_serves_what
    t = ->(name) { Arena::Load::Transport.parse(name) }
    puma = Arena::Servers::Puma.new
    assert_nil puma.transport_unsupported(t["tls"])
    assert_match(/HTTP\/1\.1 only/, puma.transport_unsupported(t["h2"]))
    assert_nil Arena::Servers::Falcon.new.transport_unsupported(t["h2"])
    assert_match(/http:\/\/ endpoint speaks HTTP\/1\.1 only/, Arena::Servers::Falcon.new.transport_unsupported(t["h2c"]))
    assert_match(/plain HTTP\/1\.1 only: put a front/, Arena::Servers::Unicorn.new.transport_unsupported(t["tls"]))
    assert_nil Arena::Servers::Unicorn.new.transport_unsupported(t["http1"])
    assert_nil Arena::Servers::Iodine.new.transport_unsupported(t["tls"])
    assert_match(/--ssl_cert\/--ssl_key take no value/, Arena::Servers::Agoo.new.transport_unsupported(t["tls"]))
    assert_match(/h2c only on a port without HTTP\/1\.1/, Arena::Fronts::Nginx.transport_unsupported(t["h2c"]))
    assert_match(/Let's Encrypt only/, Arena::Fronts::Thruster.transport_unsupported(t["h2"]))
    assert_nil Arena::Fronts::Caddy.transport_unsupported(t["h2c"])
  end

  def test_puma_is_handed_the_runs_certificate
    files = Arena::Launch::Certificates::Files.new(ca: "/r/ca.pem", cert: "/r/cert.pem", key: "/r/key.pem", chain: "/r/chain.pem")
    bind = Arena::System::Bind.tcp(port: 9443).with_tls(files)
    assert_equal "ssl://127.0.0.1:9443?key=/r/key.pem&cert=/r/cert.pem&verify_mode=none", Arena::Servers::Puma.new.bind_uri(bind)
    assert_equal "/r/ca.pem", bind.ca
  end

  def test_caddy_config_terminates_h2_with_the_runs_certificate
    files = Arena::Launch::Certificates::Files.new(ca: "/r/ca.pem", cert: "/r/cert.pem", key: "/r/key.pem", chain: "/r/chain.pem")
    skip "caddy is not installed" unless Arena::Fronts::Caddy.binary
    caddy = Arena::Fronts::Caddy.new(upstreams: [Arena::System::Bind.tcp(port: 9000)], dir: "/tmp/x",
      bind: Arena::System::Bind.tcp(port: 9443).with_tls(files), transport: Arena::Load::Transport.parse("h2"))
    text = caddy.config
    assert_includes text, "https://127.0.0.1:9443 {"
    assert_includes text, "tls /r/chain.pem /r/key.pem"
    assert_includes text, "protocols h1 h2"
    assert_includes text, "reverse_proxy 127.0.0.1:9000"
    assert_includes text, "admin off"
  end

  def test_plan_leaves_out_servers_that_cannot_serve_the_transport
    plan = Arena::TestHelp.plan("--servers", "puma:workers=0 unicorn:workers=1", "--transport", "tls")
    assert_equal ["puma"], plan.servers.map(&:key)
    assert_equal "tls", plan.transport.name
    e = assert_raises(Arena::Error) { Arena::TestHelp.plan("--servers", "unicorn:workers=1", "--transport", "h2") }
    assert_match(/no server can serve h2 itself/, e.message)
    plan = Arena::TestHelp.plan("--servers", "unicorn:workers=1", "--transport", "h2", "--front", "nginx")
    assert_equal ["unicorn"], plan.servers.map(&:key)
  end

  # A failure path with a stand-in engine: a server that answered over
  # HTTP/1.1 when h2 was asked is named, not measured as h2.
  def test_transport_check_refuses_another_protocol
    Dir.mktmpdir do |dir|
      fake = File.join(dir, "engine")
      File.write(fake, "#!/bin/sh\necho '{\"transport\":{\"protocol\":\"http/1.1\",\"tls\":\"TLSv1.3\"},\"errors\":{\"total\":0}}'\n")
      File.chmod(0o755, fake)
      bind = Arena::System::Bind.tcp(port: 1).with_tls(:self_signed)
      outcome = Arena::Verify::TransportCheck.new(transport: Arena::Load::Transport.parse("h2"), engine_path: fake).call(bind)
      refute outcome.ok?
      assert_equal "negotiated http/1.1, expected h2", outcome.problem
      assert Arena::Verify::TransportCheck.new(transport: Arena::Load::Transport.parse("tls"), engine_path: fake).call(bind).ok?
    end
  end

  def test_certificates_verify_and_expire
    Dir.mktmpdir do |dir|
      good = Arena::Launch::Certificates.write(dir: File.join(dir, "g"))
      old = Arena::Launch::Certificates.write(dir: File.join(dir, "o"), expired: true)
      store = OpenSSL::X509::Store.new
      store.add_file(good.ca)
      assert store.verify(OpenSSL::X509::Certificate.new(File.read(good.cert)))
      store = OpenSSL::X509::Store.new
      store.add_file(old.ca)
      refute store.verify(OpenSSL::X509::Certificate.new(File.read(old.cert)))
      assert_equal "certificate has expired", store.error_string
      assert_equal 0o600, File.stat(good.key).mode & 0o777
      # Every server of a run gets the same files: made once.
      made = File.read(good.ca)
      again = Arena::Launch::Certificates.for_run(dir: File.join(dir, "g"))
      assert_equal good, again
      assert_equal made, File.read(again.ca), "not made again"
    end
  end
end
