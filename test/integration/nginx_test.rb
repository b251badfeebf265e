# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "tmpdir"

# nginx in front, pointed at a server that started afresh on a new port (the
# fresh start after a crash): same nginx, same address, new upstream.
class NginxTest < Minitest::Test
  # A one-line HTTP server answering its own name, on a port of its own.
  RESPONDER = <<~RUBY
    require "socket"
    server = TCPServer.new("127.0.0.1", Integer(ARGV[0]))
    loop do
      client = server.accept
      client.readpartial(4096)
      client.write("HTTP/1.1 200 OK\\r\\nContent-Length: \#{ARGV[1].bytesize}\\r\\nConnection: close\\r\\n\\r\\n\#{ARGV[1]}")
      client.close
    rescue SystemCallError
      nil
    end
  RUBY

  def setup
    skip "nginx is not installed" unless Arena::Fronts::Nginx.binary
    @dir = Dir.mktmpdir("nginx-test")
    @groups = []
  end

  def teardown
    @groups&.each(&:stop)
    FileUtils.rm_rf(@dir) if @dir
  end

  def test_retarget_points_the_same_nginx_at_a_new_upstream
    first = responder("first")
    nginx = Arena::Fronts::Nginx.new(upstreams: [first.last], dir: File.join(@dir, "nginx"),
      machine: Arena::Plan::Machine.new(cores: 2)).start
    @groups << nginx
    probe = Arena::Verify::HttpProbe.new(nginx.bind, timeout: 2)
    assert_equal "first", probe.get("/").body
    master = nginx.group.pid
    first.first.stop
    second = responder("second")
    nginx.retarget([second.last])
    assert_equal "second", probe.get("/").body
    assert_equal master, nginx.group.pid, "the same nginx"
  end

  # A run directory with a space, a ; and a quote in its name, and an IPv6
  # listen: nginx.conf quotes every path and brackets the address.
  def test_awkward_paths_and_an_ipv6_listen
    upstream = responder("v6")
    dir = File.join(@dir, "run dir; \"x\" {y}", "nginx")
    bind = Arena::System::Bind.new(kind: :tcp, host: "::1", port: Arena::System::Bind.free_port("::1")).freeze
    nginx = Arena::Fronts::Nginx.new(upstreams: [upstream.last], dir: dir, machine: Arena::Plan::Machine.new(cores: 2), bind: bind)
    @groups << nginx
    nginx.start
    assert_equal "v6", Arena::Verify::HttpProbe.new(bind, timeout: 2).get("/").body
    assert_includes File.read(nginx.config_path), "listen \"[::1]:#{bind.port}\";"
  end

  def test_a_dollar_or_newline_in_a_path_is_refused
    nginx = Arena::Fronts::Nginx.new(upstreams: [Arena::System::Bind.tcp(port: 1)], dir: File.join(@dir, "a$b"))
    assert_raises(Arena::UsageError) { nginx.config }
  end

  private

  # [group, bind] of a started responder, once it answers.
  def responder(name)
    bind = Arena::System::Bind.tcp
    group = Arena::System::ProcessGroup.new(["ruby", "-e", RESPONDER, bind.port.to_s, name], log_path: File.join(@dir, "#{name}.log"))
    group.start
    @groups << group
    refute Arena::Verify::HttpProbe.new(bind, timeout: 1).await("/", deadline: Arena::Support::Clock.now + 10), "#{name} never answered"
    [group, bind]
  end
end
