# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"
require "open3"
require "arena/commands/init"

# arena.yml: every key into the plan, flags over it, one line per bad value.
class ConfigFileTest < Minitest::Test
  MACHINE = Arena::Plan::Machine.new(cores: 2)

  FULL = <<~YAML
    app: app
    servers:
      - puma: {workers: 0, threads: 4}
      - "unicorn:workers=3"
      - webrick
    workloads: ["/=200:ok", item, production]
    requests: requests.yml
    scenarios: [steady, rate]
    load:
      connections: 8
      duration: 0.5
      warmup: 0.25
      threads: 2
      timeout: 3
      keep_alive: off
      reps: 20
      requests: 500
      levels: [1, 4]
      slo_ms: 250
      step: 10
      max_connections: 200
      max_time: 60
      slow_clients: 6
      slow_mode: read
      settle_timeout: 5
      transport: h2
      h2_streams: 8
      tls_resume: on
      %<more_load>s
    repeat: 3
    bind: tcp
    front: nginx
    port: 9393
    ready_timeout: 12
    headers:
      X-Forwarded-Proto: https
      Accept: application/json
    env:
      SECRET_KEY_BASE: abc123
      WEB_CONCURRENCY: 2
    memory_budget_mb: 512
    only_app_bundle: true
    out: results
  YAML

  EXPLICIT = %i[connections duration warmup threads timeout keep_alive reps requests levels slo_ms step max_connections
    max_time slow_clients slow_mode settle_timeout transport h2_streams tls_resume].freeze

  # A valid value for a load setting this test does not name (the table grows).
  def self.sample(setting)
    case setting.type
    when Array then setting.type.last
    when :list then [setting.check&.begin || 1]
    when :switch then true
    when String.singleton_class then "/sleep?ms=5" # a path (the only string setting)
    when ->(type) { type == Arena::Load::Profile } then "hold 10/s 1s"
    else [setting.check&.begin.to_f, 1].max.then { |v| (setting.type == Integer) ? v.ceil : v + 0.5 }
    end
  end

  MORE_LOAD = Arena::Load::TABLE.reject { |s| EXPLICIT.include?(s.name) }.to_h { |s| [s.name, sample(s)] }

  def full = format(FULL, more_load: MORE_LOAD.map { |k, v| "#{k}: #{v.inspect}" }.join("\n  "))

  def setup
    @dir = Dir.mktmpdir("arena-config")
    FileUtils.mkdir_p(File.join(@dir, "app"))
    File.write(File.join(@dir, "app/config.ru"), "run ->(env) { [200, {}, ['ok']] }\n")
    File.write(File.join(@dir, "app/Gemfile"), "gem \"rack\"\n")
    File.write(File.join(@dir, "requests.yml"), "requests:\n  item: {path: /items/7, expect_body: Widget}\n  home: {path: /}\n" \
      "mixes:\n  production: {item: 3, home: 1}\n")
  end

  def teardown = FileUtils.rm_rf(@dir)

  def write(text, name: "arena.yml")
    File.write(File.join(@dir, name), text)
    File.join(@dir, name)
  end

  def builder(*flags) = Arena::Planner::Builder.new(machine: MACHINE).parse(flags, banner: "test")

  def error_for(text)
    path = write(text)
    Dir.chdir(@dir) { Arena::Planner::ConfigFile.load(path) }
    flunk "no error for #{text.inspect}"
  rescue Arena::UsageError => e
    e.message
  end

  def test_a_full_file_round_trips_into_the_plan
    path = write(full)
    b = builder("--config", path)
    plan = b.build
    assert_equal File.join(@dir, "app/config.ru"), plan.app.rackup
    assert_equal ["puma:workers=0,threads=4,preload=false", "unicorn:workers=3,preload=true,timeout=60", "webrick"], plan.servers.map(&:label)
    assert_equal ["/", "item", "production"], plan.workloads.map(&:name)
    assert_equal [200, "ok"], plan.workloads.first.to_h.values_at(:expect_status, :expect_body)
    assert_equal ["/items/7", "Widget"], plan.workloads[1].to_h.values_at(:path, :expect_body)
    assert_equal %w[steady rate], plan.scenarios
    expected_load = {connections: 8, duration: 0.5, warmup: 0.25, threads: 2, timeout: 3.0, keep_alive: "off", reps: 20,
                     requests: 500, levels: [1, 4], slo_ms: 250.0, step: 10, max_connections: 200, max_time: 60.0,
                     slow_clients: 6, slow_mode: "read", settle_timeout: 5.0, transport: "h2", h2_streams: 8, tls_resume: true}.merge(MORE_LOAD)
    assert_equal expected_load, plan.load.to_h.slice(*expected_load.keys)
    assert_equal Arena::Load::TABLE.map(&:name).sort, expected_load.keys.sort, "every load setting is in the full file"
    assert_equal [3, "tcp", "nginx", 9393, 12.0], [plan.repeat, plan.bind, plan.front, plan.port, plan.ready_timeout]
    assert_equal({"X-Forwarded-Proto" => "https", "Accept" => "application/json"}, plan.headers)
    assert_equal({"SECRET_KEY_BASE" => "abc123", "WEB_CONCURRENCY" => "2"}, plan.env)
    assert_equal File.join(@dir, "results"), plan.out_dir
    assert_equal File.join(@dir, "requests.yml"), b.options[:requests_file]
    assert_equal 512.0, b.options[:memory_budget_mb]
    assert_equal true, b.options[:only_app_bundle]
  end

  def test_flags_override_the_file
    path = write(full)
    plan = builder("--config", path, "-c", "4", "--servers", "puma:threads=2", "--keep-alive", "both", "--repeat", "1", "--out", "elsewhere").build
    assert_equal 4, plan.load.connections
    assert_equal "both", plan.load.keep_alive
    assert_equal 0.5, plan.load.duration, "what no flag set still comes from the file"
    assert_equal ["puma:workers=2,threads=2,preload=false"], plan.servers.map(&:label)
    assert_equal 1, plan.repeat
    assert_equal File.expand_path("elsewhere"), plan.out_dir
  end

  def test_the_file_in_the_working_directory_is_used
    write("servers: [webrick]\nload: {connections: 3}\n")
    plan = Dir.chdir(@dir) { builder.build }
    assert_equal 3, plan.load.connections
    assert_equal ["webrick"], plan.servers.map(&:label)
  end

  def test_each_kind_of_bad_value_is_one_line_with_file_line_and_key
    {
      "servers: [puma]\nspeed: 3\n" => "arena.yml:2: speed: unknown key (known: app, servers, workloads, requests, scenarios, load, rounds, repeat, bind, front, port, ready_timeout, headers, env, memory_budget_mb, envelope, only_app_bundle, out)",
      "load:\n  connections: 8\n  conections: 9\n" => "arena.yml:3: load.conections: unknown load setting (known: #{Arena::Load::TABLE.map(&:name).join(", ")})",
      "load:\n  connections: 0\n" => "arena.yml:2: load.connections: must be between 1 and 20000",
      "load:\n  duration: soon\n" => "arena.yml:2: load.duration: must be a number",
      "load:\n  keep_alive: sometimes\n" => "arena.yml:2: load.keep_alive: must be one of on, off, both",
      "load: 5\n" => "arena.yml:1: load: must be a mapping of load settings",
      "servers:\n  - puma\n  - pumba\n" => "arena.yml:3: servers[1]: unknown server \"pumba\" (known: #{Arena::Servers.registry.keys.sort.join(", ")})",
      "servers:\n  - puma: {threads: lots}\n" => "arena.yml:2: servers[0]: puma: threads must be a whole number, not \"lots\"",
      "servers:\n  - puma: [1, 2]\n" => "arena.yml:2: servers[0]: puma's settings must be a mapping SETTING: VALUE",
      "servers: {puma: 1}\n" => "arena.yml:1: servers: must be a list",
      "scenarios: [steady, sprint]\n" => "arena.yml:1: scenarios[1]: unknown scenario \"sprint\" (known: #{Arena::Scenarios.registry.keys.sort.join(", ")})",
      "workloads:\n  - 42\n" => "arena.yml:2: workloads[0]: must be text, not 42 (integer)",
      "repeat: 2.5\n" => "arena.yml:1: repeat: must be a whole number",
      "repeat: 0\n" => "arena.yml:1: repeat: must be between 1 and 1000",
      "bind: udp\n" => "arena.yml:1: bind: must be one of tcp, unix",
      "app: nowhere/config.ru\n" => "arena.yml:1: app: no such file or directory: nowhere/config.ru",
      "headers:\n  Bad Name: x\n" => "arena.yml:2: headers.Bad Name: \"Bad Name\" is not a header name",
      "headers:\n  - \"no colon\"\n" => "arena.yml:2: headers[0]: a header is written \"Name: value\"",
      "env:\n  1KEY: x\n" => "arena.yml:2: env.1KEY: \"1KEY\" is not an environment variable name",
      "env:\n  KEY: [1]\n" => "arena.yml:2: env.KEY: must be a plain value, not a list",
      "memory_budget_mb: lots\n" => "arena.yml:1: memory_budget_mb: must be a number",
      "port:\n" => "arena.yml:1: port: has no value",
      "only_app_bundle: yes please\n" => "arena.yml:1: only_app_bundle: must be true or false",
      "servers: [puma\nload: {}\n" => "arena.yml:1: YAML syntax: did not find expected ',' or ']'",
      "--- !ruby/object:OpenStruct\nfoo: 1\n" => "arena.yml:1: unspecified class: OpenStruct (a config file holds plain data)",
      "- puma\n" => "arena.yml:1: the file must be a mapping of settings (app:, servers:, load: ...)"
    }.each do |text, message|
      assert_equal message, error_for(text), text
      assert_equal 1, message.lines.size
    end
  end

  def test_a_bad_file_is_exit_2_with_one_line
    write("load:\n  connections: -1\n")
    err = StringIO.new
    status = Dir.chdir(@dir) { Arena::CLI.new(%w[run -d 0.1], out: StringIO.new, err: err).run }
    assert_equal 2, status
    assert_equal "arena: arena.yml:2: load.connections: must be between 1 and 20000\n", err.string
  end

  def test_init_writes_a_file_that_parses_and_builds
    FileUtils.cp(Dir[File.join(@dir, "app/*")], @dir)
    _, err, status = Open3.capture3({"BUNDLE_GEMFILE" => File.join(@dir, "Gemfile")}, "bundle", "lock", "--local", chdir: @dir)
    assert status.success?, err
    text = Arena::Commands::Init::Template.new(dir: @dir, installed: %w[puma webrick]).render
    write(text)
    assert_includes text, "\napp: config.ru\n"
    assert_includes text, "\nservers:\n  - puma\n  - webrick\n"
    assert_includes text, "\n  connections: 16          # connections\n"
    plan = Dir.chdir(@dir) { builder.build }
    assert_equal File.join(@dir, "config.ru"), plan.app.rackup
    assert_equal %w[puma:workers=2,threads=5,preload=false webrick], plan.servers.map(&:label)
    assert_equal 3, plan.repeat
    assert_equal Arena::Load::Options.new(**Arena::Load.defaults).to_h, plan.load.to_h
    err = StringIO.new
    status = Dir.chdir(@dir) { Arena::CLI.new(%w[init], out: StringIO.new, err: err).run }
    assert_equal [2, "arena: arena.yml already exists (--force overwrites it)\n"], [status, err.string], "an existing arena.yml is not overwritten"
  end
end
