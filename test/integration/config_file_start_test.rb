# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "socket"

# The config file Arena writes reproduces what it measured (issue 34): each
# installed server is started FROM THE FILE, with the command Arena prints
# beside it, and what runs is compared with Arena's own start of the same
# settings: the worker processes and the threads of each. uWSGI's file
# must also serve a 64 KB page on a kept-alive connection without the 40 ms
# stall its 4 KB router buffer causes (servers/uwsgi.rb).
class ConfigFileStartTest < Minitest::Test
  class NotServed < StandardError; end

  APP = Arena::Bundle::AppSource.builtin
  # Not the defaults (2 workers here, 4 or 5 threads): a setting the file
  # dropped shows.
  # A boot under the whole integration lane took Falcon over 30 s.
  READY = 60
  CHANGES = {"workers" => 3, "count" => 3, "processes" => 3, "pool" => 3, "threads" => 3}.freeze
  # Servers whose start from the file this test cannot see whole, with why.
  LEFT_OUT = {
    # `thin -C thin.yml start` is always its cluster controller: daemons in
    # sessions of their own, outside any process group.
    "thin" => "daemonizing cluster controller",
    # `passenger start` from Passengerfile.json showed one process of 4
    # threads and none of the 3 app processes Arena's own start shows (fresh
    # clone, session 6): not yet understood, probably its app processes
    # outside the process group this test reads. Open in issue 34.
    "passenger" => "app processes not seen from the file's start (open)"
  }.freeze

  def setup
    @tmp = Dir.mktmpdir("arena-config-file-start")
  end

  def teardown
    FileUtils.rm_rf(@tmp)
  end

  def test_each_server_started_from_its_file_runs_what_arena_ran
    classes = Arena::Servers.all.select { |k| !LEFT_OUT.key?(k.key) && k.config_file(k.new.settings, rackup: APP.rackup) && k.install(APP).found }
    assert_operator classes.size, :>=, 5
    differ = classes.filter_map do |klass|
      adapter = klass.new(settings: CHANGES.slice(*klass.settings.keys))
      arena = shape_of_arena_run(adapter)
      from_file = shape_from_file(adapter, arena[:workers])
      # A worker starts its threads as it warms (Iodine's and Itsi's from-file
      # starts once read [1, 5, 5] against [5, 5, 5]), and Itsi's briefly
      # holds one more while it starts them (CI read [1, 5, 6] once): the
      # worker count and the middle worker's threads, read once they held,
      # are what the file must reproduce.
      "#{klass.key}: Arena ran #{arena}, its file ran #{from_file}" unless settled(arena) == settled(from_file)
    rescue NotServed => e
      e.message
    rescue Arena::Launch::LocalServer::Failed => e # Arena's own start: said, and the others still compared
      "#{klass.key}: Arena's own start failed: #{e.message}"
    end
    assert_empty differ, differ.join("\n")
  end

  # The router's buffer (http_buffer_size, 64 KB) is in the file: a 64 KB
  # page on a kept-alive connection comes back without a delayed-ACK stall.
  def test_uwsgi_from_its_file_serves_a_64_kb_page_without_the_stall
    klass = Arena::Servers.fetch("uwsgi")
    skip "uwsgi is not installed" unless klass.install(APP).found
    from_file(klass.new(settings: {"processes" => 1})) do |port|
      times = keep_alive_gets(port, "/body?bytes=65536", 6).drop(1) # the first warms the worker
      assert_operator times.sort[times.size / 2], :<, 0.030, "a 64 KB page took #{times.map { |t| (t * 1000).round(1) }} ms"
    end
  end

  private

  def settled(shape) = {workers: shape[:workers], threads: shape[:threads][shape[:threads].size / 2]}

  # {workers: N, threads: [per worker]}, of Arena's own start.
  def shape_of_arena_run(adapter)
    run = Arena::Launch::LocalServer.new(adapter: adapter, app: APP, bind: Arena::System::Bind.tcp, dir: File.join(@tmp, "arena-#{adapter.key}"),
      ready_timeout: READY)
    run.start
    shape(adapter, run.group, nil)
  ensure
    run&.stop
  end

  def shape_from_file(adapter, workers)
    from_file(adapter) { |_port, group| shape(adapter, group, workers) }
  end

  # The file (and what goes beside it) written as `arena tune` writes it,
  # started with its command in that directory on a free port.
  def from_file(adapter)
    dir = File.join(@tmp, "file-#{adapter.key}")
    FileUtils.mkdir_p(dir)
    file = adapter.class.config_file(adapter.settings, rackup: APP.rackup)
    File.write(File.join(dir, file.name), file.text)
    file.files.each { |name, text| File.write(File.join(dir, name), text) }
    port = Arena::System::Bind.tcp.port
    argv = file.command.map { |word| word.sub(/\APORT=\d+\z/, "PORT=#{port}") }
    env = adapter.env(app: APP).merge("PORT" => port.to_s, "HOST" => "127.0.0.1", "PASSENGER_PORT" => port.to_s)
    group = Arena::System::ProcessGroup.new(argv, env: env, chdir: dir, log_path: File.join(dir, "server.log"))
    group.start
    failure = Arena::Verify::HttpProbe.new(Arena::System::Bind.tcp(port: port), timeout: 2).await("/", deadline: Arena::Support::Clock.now + READY) { group.exited }
    raise NotServed, "#{adapter.key} from #{file.name} (#{argv.join(" ")}): #{failure}\n#{group.log_tail(8).join("\n")}" if failure
    yield port, group
  ensure
    group&.stop
  end

  # Its workers (the adapter's own rule, as Arena counts them) and the
  # threads of each, sorted. Passenger starts its app processes one by one:
  # the count is read once it held for a second, or once it is `want`.
  def shape(adapter, group, want)
    deadline = Arena::Support::Clock.now + 10
    seen = []
    workers = nil
    loop do
      workers = adapter.worker_pids(group)
      seen << workers.size
      break if (want ? workers.size == want : seen.last(3).uniq.size == 1 && seen.size >= 3) || Arena::Support::Clock.now > deadline
      sleep 0.5
    end
    serving = workers.empty? ? [group.pid] : workers
    {workers: workers.size, threads: held_threads(serving, deadline)}
  end

  # Threads of each process, sorted, once two reads half a second apart
  # agree (or at the deadline): a worker still starting its pool is not
  # read mid-way.
  def held_threads(pids, deadline)
    last = nil
    loop do
      now = pids.map { |pid| threads(pid) }.sort
      return now if now == last || Arena::Support::Clock.now > deadline + 5
      last = now
      sleep 0.5
    end
  end

  def threads(pid) = Dir.children("/proc/#{pid}/task").size

  # Seconds each GET took, one connection kept alive.
  def keep_alive_gets(port, path, count)
    socket = TCPSocket.new("127.0.0.1", port)
    Array.new(count) do
      started = Arena::Support::Clock.now
      socket.write("GET #{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      head = +""
      head << socket.readpartial(1) until head.end_with?("\r\n\r\n")
      length = head[/^content-length:\s*(\d+)/i, 1].to_i
      body = +""
      body << socket.readpartial(length - body.bytesize) while body.bytesize < length
      Arena::Support::Clock.now - started
    end
  ensure
    socket&.close
  end
end
