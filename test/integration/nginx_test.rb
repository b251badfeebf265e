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
    skip "nginx is not installed" unless Arena::Proxy::Nginx.binary
    @dir = Dir.mktmpdir("nginx-test")
    @groups = []
  end

  def teardown
    @groups&.each(&:stop)
    FileUtils.rm_rf(@dir) if @dir
  end

  def test_retarget_points_the_same_nginx_at_a_new_upstream
    first = responder("first")
    nginx = Arena::Proxy::Nginx.new(upstreams: [first.last], dir: File.join(@dir, "nginx"),
      machine: Arena::Machine.new(cores: 2)).start
    @groups << nginx
    probe = Arena::HttpProbe.new(nginx.bind, timeout: 2)
    assert_equal "first", probe.get("/").body
    master = nginx.group.pid
    first.first.stop
    second = responder("second")
    nginx.retarget([second.last])
    assert_equal "second", probe.get("/").body
    assert_equal master, nginx.group.pid, "the same nginx"
  end

  private

  # [group, bind] of a started responder, once it answers.
  def responder(name)
    bind = Arena::Bind.tcp
    group = Arena::ProcessGroup.new(["ruby", "-e", RESPONDER, bind.port.to_s, name], log_path: File.join(@dir, "#{name}.log"))
    group.start
    @groups << group
    refute Arena::HttpProbe.new(bind, timeout: 1).await("/", deadline: Arena::Clock.now + 10), "#{name} never answered"
    [group, bind]
  end
end
