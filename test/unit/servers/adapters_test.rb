# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# Command lines of the adapters, for a fixed machine, bind and dir. Starting
# them for real is `arena check` and the integration tests.
class AdaptersTest < Minitest::Test
  MACHINE = Arena::Plan::Machine.new(cores: 2).freeze
  APP = Arena::Bundle::AppSource.builtin
  RU = APP.rackup
  TCP = Arena::System::Bind.new(kind: :tcp, host: "127.0.0.1", port: 9292).freeze

  def setup
    @dir = Dir.mktmpdir("adapters-test")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def adapter(spec) = Arena::Planner::ServerList.parse([spec], machine: MACHINE).first

  def argv(spec, bind: TCP) = adapter(spec).command(app: APP, bind: bind, dir: @dir)

  def unix = Arena::System::Bind.unix(File.join(@dir, "s.sock"))

  def test_pitchfork_writes_its_config_and_reforks_only_when_asked
    assert_equal ["bundle", "exec", "pitchfork", "-E", "production", "-c", "#{@dir}/pitchfork.conf.rb", RU], argv("pitchfork")
    assert_equal <<~RUBY, File.read("#{@dir}/pitchfork.conf.rb")
      worker_processes 2
      listen "127.0.0.1:9292"
      timeout 60
    RUBY
    argv("pitchfork:workers=3,refork_after=50/100", bind: unix)
    assert_includes File.read("#{@dir}/pitchfork.conf.rb"), "listen #{unix.path.inspect}\n"
    assert_includes File.read("#{@dir}/pitchfork.conf.rb"), "refork_after [50, 100]\n"
    assert_raises(Arena::UsageError) { adapter("pitchfork:refork_after=soon") }
    assert_equal [:refork], adapter("pitchfork").restart_mechanisms
  end

  def test_falcon_binds_http_with_a_count
    assert_equal ["bundle", "exec", "falcon", "serve", "--bind", "http://127.0.0.1:9292", "--count", "2", "--forked",
      "--config", RU], argv("falcon")
    assert_includes argv("falcon:count=4,model=threaded"), "--threaded"
    assert_raises(Arena::UsageError) { adapter("falcon:model=hybrid") }
    refute adapter("falcon").supports?(:unix)
  end

  def test_thin_single_instance_on_port_or_socket
    assert_equal ["bundle", "exec", "thin", "start", "-R", RU, "-e", "production", "-a", "127.0.0.1", "-p", "9292",
      "-P", "#{@dir}/thin.0.pid", "--tag", "thin:servers=1,threaded=false"], argv("thin")
    sock = argv("thin:threaded=true", bind: unix)
    assert_equal ["-S", unix.path], sock[8, 2]
    assert_equal "--threaded", sock.last
    assert_empty adapter("thin").restart_mechanisms
  end

  # N foreground Thins under one parent, on N distinct ports, for nginx to
  # spread the load over; the plan refuses a cluster without a proxy.
  def test_thin_cluster_is_n_instances_on_n_ports
    thin = adapter("thin:servers=3")
    cmd = thin.command(app: APP, bind: TCP, dir: @dir)
    assert_equal ["ruby", Arena::Servers::Thin::SPAWN_ALL], cmd[0, 2]
    instances = JSON.parse(cmd[2])
    assert_equal 3, instances.size
    ports = instances.map { |i| i[i.index("-p") + 1] }
    assert_equal "9292", ports.first
    assert_equal 3, ports.uniq.size
    assert_equal ports, thin.upstreams(TCP).map { |b| b.port.to_s }
    sockets = thin.upstreams(unix).map(&:path)
    assert_equal [unix.path, unix.path.sub(".sock", ".1.sock"), unix.path.sub(".sock", ".2.sock")], sockets
    error = assert_raises(Arena::UsageError) { Arena::TestHelp.plan("--servers", "thin:servers=2", machine: MACHINE) }
    assert_match(/needs --front nginx/, error.message)
  end

  def test_passenger_sets_pool_queue_and_turbocaching_explicitly
    a = adapter("passenger")
    assert_equal "passenger:pool=2,queue=100,turbocaching=false", a.label
    cmd = a.command(app: APP, bind: TCP, dir: @dir)
    assert_equal ["ruby", "-e", Arena::Servers::Passenger::SUPERVISOR, "/usr/bin/passenger-config", "/usr/bin/passenger",
      "start", APP.dir, "--engine", "builtin", "--address", "127.0.0.1", "--port", "9292", "--rackup", RU,
      "--environment", "production", "--max-pool-size", "2", "--min-instances", "2", "--max-request-queue-size", "100",
      "--pid-file", "#{@dir}/passenger.pid", "--log-file", "#{@dir}/passenger.log",
      "--disable-security-update-check", "--disable-anonymous-telemetry", "--no-friendly-error-pages"], cmd[0, 30]
    assert_equal ["--envvar", "BUNDLE_GEMFILE=#{APP.gemfile}", "--envvar", "RACK_ENV=production",
      "--envvar", "ARENA_SERVER=#{a.label}", "--envvar", "RAILS_ENV=production", "--disable-turbocaching"], cmd[30..]
    refute_includes argv("passenger:turbocaching=true"), "--disable-turbocaching"
    assert_equal ["--socket", unix.path], argv("passenger:pool=4,queue=10", bind: unix)[9, 2]
    refute_includes cmd, "--daemonize"
  end

  # The default is the HTTP router with keep-alive in front of the workers,
  # as uWSGI's docs recommend for clients talking to uWSGI directly.
  def test_uwsgi_defaults_to_the_http_router_with_keep_alive
    shim = "#{@dir}/uwsgi_rack3_shim.rb"
    assert_equal ["/usr/bin/uwsgi", "--plugin", "http,rack_ruby31", "--http", "127.0.0.1:9292", "--http-keepalive",
      "--http-auto-chunked", "--http-buffer-size", "65536", "--socket", "@arena-uwsgi-#{Digest::SHA256.hexdigest(@dir)[0, 16]}", "--master", "--processes", "2", "--die-on-term", "--need-app", "--auto-procname",
      "--rb-gc-freq", "1000", "--post-buffering", "4096", "--rbrequire", "bundler/setup", "--rbrequire", shim, "--rack", RU, "--chdir", APP.dir,
      "--pidfile", "#{@dir}/uwsgi.pid", "--touch-chain-reload", "#{@dir}/uwsgi.chain-reload"], argv("uwsgi")
    assert_equal "uwsgi:processes=2,mode=http,socket_timeout=1,gc_freq=1000,http_buffer_size=65536", adapter("uwsgi").label
    assert_includes File.read(shim), "Rack::Builder.singleton_class.prepend"
    assert_equal ["--http", unix.path], argv("uwsgi", bind: unix)[3, 2]
    assert_equal [:chain, :hup], adapter("uwsgi").restart_mechanisms
  end

  def test_uwsgi_socket_modes_stay_as_named_settings
    assert_equal ["--plugin", "rack_ruby31", "--http11-socket", "127.0.0.1:9292", "--socket-timeout", "3"],
      argv("uwsgi:mode=http11-socket,socket_timeout=3")[1, 6]
    assert_equal ["--http-socket", unix.path], argv("uwsgi:mode=http-socket", bind: unix)[3, 2]
    assert_includes argv("uwsgi:gc_freq=50").each_cons(2).to_a, ["--rb-gc-freq", "50"]
  end

  # The shim's framing (evaluated in a module of its own, so this process's
  # Rack::Builder stays as it is) frames what uWSGI would send unframed: an
  # Array body gets its length, a streamed one chunks.
  def test_uwsgi_shim_frames_responses_without_content_length
    assert_includes File.read(argv("uwsgi")[argv("uwsgi").index("bundler/setup") + 2]), Arena::Servers::Uwsgi::FRAMING
    namespace = Module.new
    namespace.module_eval(Arena::Servers::Uwsgi::FRAMING, "uwsgi framing")
    framing_class = namespace.const_get(:ArenaUwsgiFraming)
    app = ->(env) { (env["PATH_INFO"] == "/a") ? [200, {}, ["ab", "cd"]] : [200, {}, %w[x yz].each] }
    framing = framing_class.new(app)
    http11 = {"SERVER_PROTOCOL" => "HTTP/1.1", "REQUEST_METHOD" => "GET"}
    _, headers, body = framing.call(http11.merge("PATH_INFO" => "/a"))
    assert_equal ["4", %w[ab cd]], [headers["content-length"], body]
    _, headers, body = framing.call(http11.merge("PATH_INFO" => "/s"))
    assert_equal "chunked", headers["transfer-encoding"]
    assert_equal "1\r\nx\r\n2\r\nyz\r\n0\r\n\r\n", body.enum_for(:each).to_a.join
    kept = framing_class.new(->(_) { [200, {"Content-Length" => "1"}, ["x"]] }).call(http11)
    assert_equal({"Content-Length" => "1"}, kept[1])
    assert_equal({}, framing_class.new(->(_) { [204, {}, []] }).call(http11)[1])
  end

  # Every setting is checked when the plan is built: one line naming the
  # server, the setting, what it may be and what it was.
  def test_settings_are_validated_at_planning
    {
      "falcon:model=hybrid" => 'falcon: model must be forked or threaded, not "hybrid"',
      "uwsgi:mode=fastcgi" => 'uwsgi: mode must be one of http, http11-socket, http-socket, not "fastcgi"',
      "uwsgi:socket=fastcgi" => 'uwsgi: unknown setting "socket" (known: processes, mode, socket_timeout, gc_freq, http_buffer_size)',
      "pitchfork:refork_after=soon" => 'pitchfork: refork_after must be off or request counts like 50/100/1000, not "soon"',
      "pitchfork:refork_after=50/0" => 'pitchfork: refork_after must be off or request counts like 50/100/1000, not "50/0"',
      "thin:servers=0" => "thin: servers must be at least 1, not 0",
      "puma:threads=0" => "puma: threads must be at least 1, not 0",
      "unicorn:workers=two" => 'unicorn: workers must be a whole number, not "two"',
      "unicorn:preload=maybe" => 'unicorn: preload must be true or false, not "maybe"',
      "passenger:pool=0" => "passenger: pool must be at least 1, not 0"
    }.each do |spec, message|
      error = assert_raises(Arena::UsageError, spec) { Arena::TestHelp.plan("--servers", spec, machine: MACHINE) }
      assert_equal message, error.message
    end
    assert_equal [50, 100], adapter("pitchfork:refork_after=50/100").refork_after
    assert_equal 0, adapter("puma:workers=0").workers
  end

  def test_iodine_workers_threads_and_unix_as_port_zero
    assert_equal ["bundle", "exec", "iodine", "-b", "127.0.0.1", "-p", "9292", "-w", "2", "-t", "4", RU], argv("iodine")
    assert_equal ["-b", unix.path, "-p", "0"], argv("iodine", bind: unix)[3, 4]
    assert_equal [:hot], adapter("iodine").restart_mechanisms
  end

  def test_agoo_binds_a_url_and_serves_no_static_files
    assert_equal ["bundle", "exec", "agoo", "-r", "#{@dir}/agoo_init.rb", "-b", "http://127.0.0.1:9292", "-w", "2", "-t", "4",
      "-d", "#{@dir}/agoo-public", "--no-log-colorize", RU], argv("agoo")
    assert File.directory?("#{@dir}/agoo-public")
    assert_equal "unix://#{unix.path}", argv("agoo:workers=1", bind: unix)[6]
    assert_empty adapter("agoo").restart_mechanisms
  end

  # Itsi's fiber scheduler lives in a gem Arena does not add: refused when
  # the plan is made, not "not ready after 30s" (issue 33).
  def test_itsi_fibers_is_refused_at_plan_time_with_the_reason
    error = assert_raises(Arena::UsageError) { adapter("itsi:fibers=true") }
    assert_match(/\Aitsi: fibers=true needs Itsi::Scheduler from the itsi-scheduler gem \((not installed here|installed here, but not in the app's bundle); Arena does not add it beside the app\): without it Itsi starts and never answers; use fibers=false\z/, error.message)
    refute adapter("itsi:fibers=false").settings["fibers"]
  end

  # The slots each config declares: what Little's law's busy slots stand beside.
  # What the overlay adds for each server the app lacks: its gem (itsi's has
  # another name, WEBrick needs rackup beside it), none for a system program.
  def test_the_gems_each_server_needs_from_a_bundle
    gems = Arena::Servers.all.to_h { |k| [k.key, k.bundle_gems] }
    assert_equal({"itsi" => ["itsi-server"], "puma" => ["puma"], "webrick" => %w[webrick rackup], "passenger" => [], "uwsgi" => [], "puma-jruby" => []},
      gems.slice("itsi", "puma", "webrick", "passenger", "uwsgi", "puma-jruby"))
    assert_equal %w[agoo falcon iodine pitchfork thin unicorn], gems.select { |k, g| g == [k] && k != "puma" }.keys.sort
  end

  def test_declared_slots
    assert_equal 8, adapter("itsi:workers=2,threads=4").declared_slots
    assert_nil Arena::Servers::Itsi.slots.call({"workers" => 1, "threads" => 4, "fibers" => true}), "fibers: no fixed ceiling"
    assert_equal 1, adapter("thin").declared_slots, "a request at a time on the reactor"
    assert_equal 20, adapter("thin:threaded=true").declared_slots, "EventMachine's 20 threads"
    assert_equal 40, adapter("thin:servers=2,threaded=true").declared_slots
    assert_equal 8, adapter("agoo:workers=2,threads=4").declared_slots
    assert_nil adapter("webrick").declared_slots, "a thread per connection"
    assert_nil adapter("falcon").declared_slots
  end

  # Agoo's poll_timeout has no flag: a non-default value is passed to
  # Agoo::Server.init by a file loaded with -r, through the environment.
  def test_agoo_poll_timeout_through_a_required_file
    assert_equal "0.1", adapter("agoo").env(app: APP)["ARENA_AGOO_POLL_TIMEOUT"]
    cmd = argv("agoo:poll_timeout=0.01")
    assert_equal ["-r", "#{@dir}/agoo_init.rb"], cmd[3, 2]
    assert_includes File.read("#{@dir}/agoo_init.rb"), "Agoo::Server.singleton_class.prepend"
    assert_equal "0.01", adapter("agoo:poll_timeout=0.01").env(app: APP)["ARENA_AGOO_POLL_TIMEOUT"]
    # Its Rack handler drops -t; the init file passes the threads on.
    assert_equal "4", adapter("agoo").env(app: APP)["ARENA_AGOO_THREADS"]
    assert_equal "0", adapter("agoo:threads=0").env(app: APP)["ARENA_AGOO_THREADS"]
    assert_raises(Arena::UsageError) { adapter("agoo:poll_timeout=0.00001") }
    assert_raises(Arena::UsageError) { adapter("agoo:poll_timeout=2") }
    assert_equal 0, adapter("agoo:threads=0").settings["threads"]
  end

  def test_puma_jruby_runs_outside_the_mri_bundle
    a = adapter("puma-jruby")
    assert_equal ["/usr/bin/jruby", "-S", "puma", "--no-config", "-e", "production", "-t", "8:8", "-b", "tcp://127.0.0.1:9292",
      "--pidfile", "#{@dir}/puma.pid", RU], a.command(app: APP, bind: TCP, dir: @dir)
    assert_equal({"BUNDLE_GEMFILE" => nil, "GEM_HOME" => nil, "GEM_PATH" => nil}, a.env(app: APP).slice("BUNDLE_GEMFILE", "GEM_HOME", "GEM_PATH"))
    assert_equal [:hot], a.restart_mechanisms
  end
end
