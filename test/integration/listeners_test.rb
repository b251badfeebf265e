# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Arena promises loopback: a server listens where Arena asks and nowhere
# else. Every installed server is started on the built-in app (three at a
# time, to keep the test short), and every listening socket of its whole process tree
# is read from /proc/net/tcp{,6} and the tree's socket inodes. On the same
# boots, each is then stopped and its log read.
class ListenersTest < Minitest::Test
  def setup
    @tmp = Dir.mktmpdir("arena-listeners")
  end

  def teardown
    FileUtils.rm_rf(@tmp)
  end

  def test_every_server_listens_only_on_arenas_address
    app = Arena::Bundle::AppSource.builtin
    classes = Arena::Servers.all.select { |k| k.install(app).found }
    refute_empty classes
    runs = classes.map do |klass|
      settings = klass.worker_setting ? {klass.worker_setting => 1} : {}
      Arena::Launch::LocalServer.new(adapter: klass.new(settings: settings), app: app, bind: Arena::System::Bind.tcp, dir: File.join(@tmp, klass.key))
    end
    # Three boots at a time: all at once on two busy cores left one past its 30 s.
    queue = Queue.new
    runs.each { |run| queue << run }
    queue.close
    Array.new(3) { Thread.new { while (run = queue.pop) do run.start end } }.each(&:join)
    expected = runs.to_h { |run| [run.adapter.key, run.adapter.upstreams(run.bind).map(&:address).sort] }
    found = runs.to_h { |run| [run.adapter.key, Arena::System::Procfs.listening(run.pids - app_processes(run)).sort] }
    assert_equal expected, found
    runs.each do |run|
      app_processes(run).each { |pid| assert_match(/\A127\.0\.0\.1:\d+\z/, Arena::System::Procfs.listening([pid]).join(" ")) }
    end
    # The same boots: a normal stop is not logged as a crash (WEBrick logged
    # "FATAL SignalException: SIGTERM" and a backtrace when told TERM).
    runs.each(&:stop)
    crashes = runs.to_h { |run| [run.adapter.key, File.read(File.join(run.dir, "server.log")).lines.grep(/SignalException/).first] }
    assert_equal({}, crashes.compact)
  ensure
    runs&.each { |run| run.stop if run.group }
  end

  # Passenger's app processes always open an HTTP socket of their own on
  # 127.0.0.1 (phusion_passenger/request_handler.rb, with no option to
  # leave it out): loopback, but not Arena's address; checked apart.
  def app_processes(run)
    return [] unless run.adapter.key == "passenger"
    run.pids.select { |pid| Arena::System::Procfs.cmdline(pid).start_with?("Passenger RubyApp") }
  end
end
