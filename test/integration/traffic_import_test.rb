# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "zlib"

# `arena traffic import` on logs real servers wrote: nginx's access log under
# a known mix sent by the engine, and the Rails fixture's production log.
class TrafficImportTest < Arena::ArenaCase
  ENGINE = Arena::TestHelp.engine_path
  # The mix the engine sends through nginx: weight method path status.
  MIX = <<~MIX
    10 GET /items/1 200
    10 GET /items/2 200
    10 GET /items/3 200
    10 GET /items/4 200
    10 GET /items/5 200
    15 GET /search?q=shoes&page=1 200
    15 GET /search?page=2&q=hats 200
    15 GET /about 200
    5 GET /missing/7 404
  MIX

  def test_nginx_access_log_under_a_known_mix_imports_back_to_its_weights
    skip "nginx is not installed" unless Arena::Fronts::Nginx.binary
    log = nginx_log_under(MIX, requests: 20_000)
    gz = File.join(@tmp, "access.log.1.gz")
    Zlib::GzipWriter.open(gz) { |io| io.write(File.binread(log)) }
    [log, gz].each_with_index do |input, i|
      out = File.join(@tmp, "requests-#{i}.yml")
      stdout, stderr, status = Open3.capture3(EXE, "traffic", "import", input, "-o", out, "--coverage", "100", "--redact", "q")
      assert status.success?, "#{stdout}\n#{stderr}"
      assert_match(/20000 requests, 4 templates/, stdout)
      file = Arena::Plan::RequestsFile.load(out)
      mix = file.workloads.first.mix
      total = mix.sum(&:first).to_f
      shares = mix.to_h { |weight, wl| [wl.name, weight / total * 100] }
      {"get_items_id" => 50, "get_search_page_q" => 30, "get_about" => 15, "get_missing_id" => 5}.each do |name, want|
        assert_in_delta want, shares.fetch(name), 2, "#{name}: #{shares.inspect}"
      end
      items = file.requests.fetch("get_items_id")
      assert_operator items.samples.uniq.size, :>=, 4, "a spread of real ids, not one: #{items.samples.inspect}"
      assert items.samples.all? { |p| p.match?(%r{\A/items/[1-5]\z}) }, items.samples.inspect
      assert_equal 404, file.requests.fetch("get_missing_id").expect_status
      search = file.requests.fetch("get_search_page_q").samples
      assert search.all? { |p| p.include?("q=&") || p.end_with?("q=") }, "q's values redacted: #{search.inspect}"
      assert search.any? { |p| p.include?("page=2") }, "page's values kept: #{search.inspect}"
    end
  end

  def test_the_rails_fixture_production_log_imports_with_its_statuses
    app = File.join(ROOT, "test/fixtures/apps/rails")
    gemfile = File.join(app, "Gemfile")
    _, _, ok = Open3.capture3({"BUNDLE_GEMFILE" => gemfile}, "bundle", "check")
    skip "fixture rails is not installed (script/setup)" unless ok.success?
    log = rails_log(app, gemfile)
    out = File.join(@tmp, "rails.yml")
    stdout, stderr, status = Open3.capture3(EXE, "traffic", "import", log, "-o", out)
    assert status.success?, "#{stdout}\n#{stderr}"
    assert_match(/Rails production log\): 20 requests/, stdout)
    assert_match(%r{left out: 15\.0% +POST +/echo +has a body}, stdout)
    assert_match(%r{beyond the coverage: 1 template, 5\.0% of requests \(GET /nope 5\.0%\)}, stdout)
    refute_match(/malformed/, stdout)
    file = Arena::Plan::RequestsFile.load(out)
    names = file.workloads.first.mix.to_h { |weight, wl| [wl.name, weight] }
    assert_equal({"get_items_id" => 6000, "get_items" => 2000}, names)
    assert_equal %w[/items/1 /items/2 /items/3], file.requests.fetch("get_items_id").samples.uniq
  end

  private

  # nginx writing its combined access log, answering every path itself, while
  # the engine sends `requests` requests of the mix; the log's path.
  def nginx_log_under(mix, requests:)
    dir = File.join(@tmp, "nginx")
    FileUtils.mkdir_p(File.join(dir, "temp"))
    bind = Arena::System::Bind.tcp
    log = File.join(dir, "access.log")
    File.write(File.join(dir, "nginx.conf"), <<~NGINX)
      #{"user root;" if Process.uid.zero?}
      worker_processes 1;
      pid #{dir}/nginx.pid;
      error_log #{dir}/error.log warn;
      events { worker_connections 1024; }
      http {
        access_log #{log} combined;
        client_body_temp_path #{dir}/temp;
        server {
          listen #{bind.address};
          location = /ready { access_log off; return 200; }
          location /missing { return 404; }
          location / { return 200 "ok\\n"; }
        }
      }
    NGINX
    nginx = Arena::System::ProcessGroup.new([Arena::Fronts::Nginx.binary, "-p", dir, "-c", File.join(dir, "nginx.conf"), "-g", "daemon off;"],
      log_path: File.join(dir, "nginx.out"))
    nginx.start
    refute Arena::Verify::HttpProbe.new(bind, timeout: 1).await("/ready", deadline: Arena::Support::Clock.now + 10), "nginx never answered"
    mix_file = File.join(dir, "mix.txt")
    File.write(mix_file, mix)
    out, err, status = Open3.capture3(ENGINE, "-c", "8", "-t", "1", "-n", requests.to_s, "--mix", mix_file, "http://#{bind.address}/")
    assert status.success?, "#{out}\n#{err}"
    assert_equal requests, JSON.parse(out).dig("requests", "completed")
    nginx.stop
    log
  ensure
    nginx&.stop
  end

  # The Rails fixture under Puma (its own Gemfile's server) in production,
  # logging to stdout as `rails new` sets it up, after a known set of requests.
  def rails_log(app, gemfile)
    bind = Arena::System::Bind.tcp
    log = File.join(@tmp, "production.log")
    env = {"BUNDLE_GEMFILE" => gemfile, "RAILS_ENV" => "production", "SECRET_KEY_BASE" => "x" * 64}
    puma = Arena::System::ProcessGroup.new(["bundle", "exec", "puma", "-b", "tcp://#{bind.address}", "-t", "2:2", "config.ru"],
      log_path: log, env: env, chdir: app)
    puma.start
    probe = Arena::Verify::HttpProbe.new(bind, timeout: 5)
    ssl = {"X-Forwarded-Proto" => "https"}
    refute probe.await("/up", deadline: Arena::Support::Clock.now + 60), "the Rails app never answered: #{File.read(log)[-2000..]}"
    File.truncate(log, 0)
    12.times { |i| assert_equal 200, probe.get("/items/#{i % 3 + 1}", headers: ssl).status }
    4.times { assert_equal 200, probe.get("/items", headers: ssl).status }
    3.times { assert_equal 200, probe.request("POST", "/echo", body: "{}", headers: ssl.merge("Content-Type" => "application/json")).status }
    assert_equal 301, probe.get("/items/9").status # force_ssl redirects what came without the header
    assert_equal 404, probe.get("/nope", headers: ssl).status
    puma.stop
    log
  ensure
    puma&.stop
  end
end
