# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "digest"
require "timeout"
require "yaml"

# A user's own app on every server: the fixture apps under test/fixtures/apps
# (installed by script/setup), each with a bundle that names one server (or
# none), run through Arena's overlay bundle. Loads are 1 s.
class YourAppTest < Arena::ArenaCase
  FIXTURES = File.join(ROOT, "test/fixtures/apps")
  # One overlay cache for this file: built by the first test that needs it,
  # reused by the rest (the cache test uses a fresh one of its own).
  CACHE = Arena::TestHelp.tmpdir("arena-overlay-cache")
  FORWARDED = "X-Forwarded-Proto: https"

  def setup
    super
    %w[sinatra rails rack2].each do |name|
      gemfile = File.join(FIXTURES, name, "Gemfile")
      _, _, status = Open3.capture3({"BUNDLE_GEMFILE" => gemfile}, "bundle", "check")
      skip "fixture #{name} is not installed (script/setup)" unless status.success?
    end
  end

  # Every server that can run a user's app here. Puma on JRuby is left out:
  # it runs outside the app's bundle (JRuby's own gems), so an app that
  # needs gems of its own does not boot there.
  def servers(except: [])
    Arena::Servers.all.reject { |k| (["puma-jruby"] + except).include?(k.key) }
      .select { |k| !Arena::Bundle::Overlay.gems_for(k).empty? || k.install(Arena::AppSource.builtin).found }
      .map(&:key)
  end

  def test_every_server_runs_the_sinatra_app_and_its_files_stay_as_they_were
    app = File.join(FIXTURES, "sinatra")
    before = fingerprint(app)
    outcome = run_app("run", "--app", app, "--servers", servers.join(" "), "--workload", "/items/7", "-d", "1", "-w", "0.3")
    assert outcome.status.success?, outcome.describe
    assert_measured_without_errors(outcome, servers)
    assert_equal before, fingerprint(app), "the app's Gemfile and Gemfile.lock changed"
  end

  # Agoo is left out on Rails: it never closes a response body (Rack's
  # BodyProxy), so Rails' per-request cleanup never runs; request-id log
  # tags pile up and it slows to a crawl, then segfaults (README).
  def test_every_server_runs_the_rails_app_behind_a_forwarded_proto_header
    app = File.join(FIXTURES, "rails")
    before = fingerprint(app)
    list = servers(except: ["agoo"])
    outcome = run_app("run", "--app", app, "--servers", list.join(" "), "--header", FORWARDED,
      "--workload", "/items/7", "-d", "1", "-w", "0.5", timeout: 600)
    assert outcome.status.success?, outcome.describe
    assert_measured_without_errors(outcome, list)
    assert_equal before, fingerprint(app), "the app's Gemfile and Gemfile.lock changed"
  end

  def test_rails_without_the_header_fails_verification_with_the_force_ssl_hint
    outcome = run_app("check", "--app", File.join(FIXTURES, "rails"), "--servers", "puma", "--workload", "/items/7")
    refute outcome.status.success?, outcome.describe
    line = (outcome.stdout + outcome.stderr).lines.grep(/status 301/).first
    assert_match %r{redirect to https://127\.0\.0\.1:\d+/items/7\): the app forces SSL \(Rails `config.force_ssl`\): add `--header 'X-Forwarded-Proto: https'`}, line.to_s, outcome.describe
  end

  # The rack2 fixture's lock has json 3; itsi-server 0.2.27 needs json ~> 2.
  def test_a_server_that_conflicts_with_the_apps_lock_is_reported_and_skipped
    list = servers
    outcome = run_app("run", "--app", File.join(FIXTURES, "rack2"), "--servers", list.join(" "), "--workload", "/json=200:rack",
      "-d", "1", "-w", "0.2")
    assert outcome.status.success?, outcome.describe
    assert_includes outcome.stderr.lines.map(&:chomp),
      "itsi: cannot be added beside this app: itsi-server 0.2.27 needs json ~> 2, the app locks json 3.1.0"
    ran = list - ["itsi"]
    # With no registry reachable a server whose gems are not installed is
    # named and skipped as well; the rest still runs.
    unfetched = outcome.stderr[/^not fetched \(no registry reachable\): .*skipped: (.*)$/, 1].to_s.split(", ")
    assert_measured_without_errors(outcome, ran - unfetched)
    refute outcome.results["servers"].any? { |s| s["name"] == "itsi" }
  end

  # The registry is a closed loopback port (Bundler's mirror setting): the
  # server that would need it is named in one line, the installed ones run.
  def test_with_no_registry_reachable_the_installed_servers_still_run
    Dir.mktmpdir("arena-cache") do |cache|
      outcome = run_app("run", "--app", File.join(FIXTURES, "rack2"), "--servers", "puma thin itsi", "--workload", "/json",
        "-d", "1", "-w", "0.2", cache: cache, env: {"BUNDLE_MIRROR__ALL" => "http://127.0.0.1:9"})
      assert outcome.status.success?, outcome.describe
      assert_includes outcome.stderr.lines.map(&:chomp), "not fetched (no registry reachable): itsi-server; skipped: itsi"
      assert_measured_without_errors(outcome, %w[puma thin])
    end
  end

  def test_the_overlay_is_built_once_and_then_reused
    Dir.mktmpdir("arena-cache") do |cache|
      first = run_app("servers", "--app", File.join(FIXTURES, "sinatra"), cache: cache)
      assert first.status.success?, first.describe
      assert_match(/^overlay bundle built in [\d.]+ s: \d+ server\(s\) added/, first.stderr)
      assert_match(/falcon\s+\|\s+yes\s+\|\s+[\d.]+\s+\|\s+added by Arena/, first.stdout)
      assert_match(/puma\s+\|\s+yes\s+\|\s+[\d.]+\s+\|\s+in the app's bundle/, first.stdout)
      # A system program that is missing says why, as without --app.
      jruby = Arena::Servers::PumaJruby.install(Arena::AppSource.builtin)
      assert_match(/puma-jruby\s+\|\s+no\s+\|\s+-\s+\|\s+#{Regexp.escape(jruby.why)}/, first.stdout) unless jruby.found
      second = run_app("servers", "--app", File.join(FIXTURES, "sinatra"), cache: cache)
      assert_match(/^overlay bundle reused: /, second.stderr, second.describe)
      # Another --servers set uses the same bundle: it holds every server that can join.
      third = run_app("run", "--app", File.join(FIXTURES, "sinatra"), "--servers", "falcon", "--workload", "/items/7",
        "-d", "0.2", "-w", "0", cache: cache)
      assert_match(/^overlay bundle reused: 1 server\(s\) added/, third.stderr, third.describe)
      only = run_app("servers", "--app", File.join(FIXTURES, "sinatra"), "--only-app-bundle", cache: cache)
      assert_match(/falcon\s+\|\s+no\s+\|\s+-\s+\|\s+gem falcon is not in Gemfile/, only.stdout, only.describe)
    end
  end

  def test_inside_an_app_directory_arena_runs_that_app_and_says_so_first
    app = File.join(FIXTURES, "sinatra")
    outcome = run_app("run", "--servers", "puma", "--workload", "/", "--workload", "/items/7", "-d", "1", "-w", "0.2", chdir: app)
    assert outcome.status.success?, outcome.describe
    assert_equal "benchmarking the app in this directory (#{app}/config.ru); --app chooses another", outcome.stderr.lines.first.chomp
    # Repeated --workload flags add up (rounds shuffle their order).
    assert_equal ["/", "/items/7"], outcome.measurements.map { |m| m["workload"] }.uniq.sort
  end

  def test_a_requests_file_mix_runs_as_one_workload_with_its_bodies_checked
    app = File.join(FIXTURES, "rails")
    outcome = run_app("run", "--app", app, "--servers", "puma", "--header", FORWARDED,
      "--requests", File.join(app, "requests.yml"), "-d", "1", "-w", "0.3")
    assert outcome.status.success?, outcome.describe
    assert_equal ["production"], outcome.measurements.map { |m| m["workload"] }.uniq
    m = outcome.measurements.first
    assert_includes m["engine_argv"], "--mix"
    assert_equal 0, m.dig("load", "errors", "total"), outcome.describe
    assert_operator m.dig("load", "requests", "completed"), :>, 20

    # A wrong expected body in one request of the mix fails verification, by name.
    wrong = YAML.safe_load_file(File.join(app, "requests.yml"))
    wrong["requests"]["items"]["expect_body"] = "no such text"
    path = File.join(@tmp, "requests.yml")
    File.write(path, YAML.dump(wrong))
    bad = run_app("run", "--app", app, "--servers", "puma", "--header", FORWARDED, "--requests", path, "-d", "1", "-w", "0")
    refute bad.status.success?, bad.describe
    assert_match(/items: body lacks "no such text"/, bad.stdout + bad.stderr)
  end

  private

  def run_app(*args, cache: CACHE, chdir: ROOT, timeout: 300, env: {})
    out = File.join(@tmp, "run-#{name}-#{rand(1 << 30)}")
    args += ["--out", out] if args.first == "run"
    # One round, as ArenaCase#arena: these tests are about the apps, not the rounds.
    args += ["--rounds", "1"] if args.first == "run" && (args & %w[--rounds --repeat --precision]).empty?
    stdout, stderr, status = Timeout.timeout(timeout) do
      Open3.capture3({"XDG_CACHE_HOME" => cache}.merge(env), EXE, *args, chdir: chdir)
    end
    Outcome.new(status: status, stdout: stdout, stderr: stderr, dir: out)
  end

  def fingerprint(app) = %w[Gemfile Gemfile.lock].to_h { |f| [f, Digest::SHA256.file(File.join(app, f)).hexdigest] }

  def assert_measured_without_errors(outcome, keys)
    by_server = outcome.measurements.group_by { |m| m["server"].split(":").first }
    keys.each do |key|
      ms = by_server[key]
      refute_nil ms, "#{key} was not measured\n#{outcome.describe}"
      ms.each do |m|
        assert_equal 0, m.dig("load", "errors", "total"), "#{key}: #{m.dig("load", "errors")}"
        assert_operator m.dig("load", "requests", "completed"), :>, 0, key
      end
    end
  end
end
