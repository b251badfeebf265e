# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# The pieces of "your own app": app sources, requests files and their mix
# files, header and env flags, verification of redirects and mixes, and
# Bundler's answers read as one-line reasons.
class YourAppUnitTest < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/apps", __dir__)

  Canned = Struct.new(:raw, :seen) do
    def request(method, path, body: nil, headers: {})
      seen << [method, path, headers]
      Arena::Verify::HttpProbe.parse(raw.respond_to?(:call) ? raw.call(path) : raw)
    end
  end

  def test_app_is_a_directory_or_its_config_ru
    by_dir = Arena::Bundle::AppSource.user(File.join(FIXTURES, "sinatra"))
    by_file = Arena::Bundle::AppSource.user(File.join(FIXTURES, "sinatra/config.ru"))
    assert_equal by_dir.rackup, by_file.rackup
    assert_equal File.join(FIXTURES, "sinatra/Gemfile"), by_dir.app_gemfile
    assert_equal "production", by_dir.env["RAILS_ENV"]
    error = assert_raises(Arena::UsageError) { Arena::Bundle::AppSource.user(FIXTURES) }
    assert_match(/no config.ru in this directory/, error.message)
  end

  def test_the_working_directory_app_is_found_and_announced
    app = Arena::Bundle::AppSource.in_directory(File.join(FIXTURES, "rails"))
    assert_equal :cwd, app.origin
    assert_match(/benchmarking the app in this directory/, app.announcement)
    assert_nil Arena::Bundle::AppSource.in_directory(FIXTURES)
  end

  def test_user_env_adds_a_throwaway_rails_secret_unless_given
    assert_equal "1", Arena::Bundle::AppSource.user_env({})["SECRET_KEY_BASE_DUMMY"]
    refute Arena::Bundle::AppSource.user_env({"SECRET_KEY_BASE" => "x"}).key?("SECRET_KEY_BASE_DUMMY")
    refute Arena::Bundle::AppSource.user_env({}, railties: "7.1.0").key?("SECRET_KEY_BASE"), "7.1 makes its own"
    old = Arena::Bundle::AppSource.user_env({}, railties: "6.1.7.10")
    assert_match(/\A\h{128}\z/, old["SECRET_KEY_BASE"], "Rails 6.1 has no SECRET_KEY_BASE_DUMMY: a random secret")
    refute_equal old["SECRET_KEY_BASE"], Arena::Bundle::AppSource.user_env({}, railties: "6.1.7.10")["SECRET_KEY_BASE"]
    assert_equal "x", Arena::Bundle::AppSource.user_env({"SECRET_KEY_BASE" => "x"}, railties: "6.1.7.10")["SECRET_KEY_BASE"]
    assert_equal({"DATABASE_URL" => "postgres://x=y"}, Arena::Bundle::AppSource.env_pair("DATABASE_URL=postgres://x=y"))
    assert_raises(Arena::UsageError) { Arena::Bundle::AppSource.env_pair("no-equals") }
  end

  # An app generated before Rails 7.1 logs to log/production.log unless
  # RAILS_LOG_TO_STDOUT is set: Arena sets it, says so, and leaves it to a
  # user who gives it (empty keeps the file); an app that always logs to
  # STDOUT, or names the variable only in a comment, is left as it is.
  def test_an_app_that_logs_to_its_file_unless_told_is_told_to_log_to_stdout
    Dir.mktmpdir do |dir|
      FileUtils.mkdir_p(File.join(dir, "config/environments"))
      File.write(File.join(dir, "config.ru"), "run Rails.application\n")
      File.write(File.join(dir, "Gemfile"), "gem 'rails'\n")
      File.write(File.join(dir, "Gemfile.lock"), "GEM\n  specs:\n    railties (7.0.8)\n")
      File.write(File.join(dir, "config/application.rb"), "")
      production = File.join(dir, "config/environments/production.rb")
      File.write(production, "  if ENV[\"RAILS_LOG_TO_STDOUT\"].present?\n    config.logger = Logger.new(STDOUT)\n  end\n")
      said = []
      app = Arena::Bundle::AppSource.for_run(dir, overlay: false, say: ->(line) { said << line })
      assert_equal "1", app.env["RAILS_LOG_TO_STDOUT"]
      assert_equal 1, said.grep(/leave that file alone/).size, said.inspect
      kept = Arena::Bundle::AppSource.for_run(dir, env: {"RAILS_LOG_TO_STDOUT" => "", "SECRET_KEY_BASE" => "x"}, overlay: false,
        say: ->(line) { said << line })
      assert_equal "", kept.env["RAILS_LOG_TO_STDOUT"]
      assert_equal 1, said.grep(/leave that file alone/).size, "no note when the user set it"
      assert_equal "1", Arena::Bundle::AppSource.for_run(dir, env: {"SECRET_KEY_BASE" => "x"}, overlay: false).env["RAILS_LOG_TO_STDOUT"]
      File.write(production, "  # RAILS_LOG_TO_STDOUT is not needed: Rails 7.1 logs to STDOUT\n  config.logger = Logger.new(STDOUT)\n")
      refute Arena::Bundle::AppSource.for_run(dir, overlay: false).env.key?("RAILS_LOG_TO_STDOUT")
    end
  end

  def test_header_flag
    assert_equal({"X-Forwarded-Proto" => "https"}, Arena::Plan::Workloads.header("X-Forwarded-Proto: https"))
    ["no colon", "Bad Name: x", ""].each do |bad|
      assert_raises(Arena::UsageError, bad) { Arena::Plan::Workloads.header(bad) }
    end
  end

  def test_repeated_workload_flags_add_up
    plan = Arena::TestHelp.plan("--servers", "puma", "--workload", "server", "--workload", "json,pi")
    assert_equal %w[server json pi], plan.workloads.map(&:name)
  end

  def test_requests_file_requests_mixes_and_the_engine_mix_file
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "payload.json"), '{"a":1}')
      path = write(dir, <<~YAML)
        requests:
          item: {path: /items/7, expect_body: '"id":7'}
          list: /items
          create: {method: post, path: /items, body_file: payload.json, expect_status: 201, expect_body: created ok}
        mixes:
          production: {item: 6, list: 3, create: 1}
      YAML
      file = Arena::Plan::RequestsFile.load(path)
      assert_equal %w[production], file.workloads.map(&:name)
      assert_equal %w[item list], file.workloads(%w[item list]).map(&:name)
      assert_equal "/other", file.workloads(["/other=204"]).first.path
      mix = file.workloads.first
      assert mix.mix?
      assert_equal '{"a":1}', mix.body
      assert_equal <<~MIX, File.read(mix.mix_file(dir))
        # weight[:request] method path expected_status [expected body substring]
        6:item GET /items/7 200 "id":7
        3:list GET /items 200
        1:create POST /items 201 created ok
      MIX
      assert_nil file.requests["item"].mix_file(dir)
    end
  end

  def test_requests_file_mistakes_are_one_line
    {
      "requests: {}\n" => /requests: must name at least one request/,
      "requests: {a: {path: items}}\n" => /requests.a.path: must start with \//,
      "requests: {a: {path: /a, verb: GET}}\n" => /requests.a: unknown key "verb"/,
      "requests: {a: /a}\nmixes: {m: {b: 1}}\n" => /mixes.m: no request named "b"/,
      "requests: {a: /a}\nmixes: {m: {a: 0}}\n" => /weight must be a whole number/,
      "requests: {a: {path: /a, headers: {X-A: '1'}}, b: /b}\nmixes: {m: {a: 1, b: 1}}\n" => /different headers/,
      "requests: {a: {path: /a, expect_status: ok}}\n" => /expect_status: must be a status code/,
      "requests: {a: {path: /a, expect_body: yes}}\n" => /quote it/,
      "requests: [\n" => /not valid YAML/
    }.each do |yaml, message|
      Dir.mktmpdir do |dir|
        error = assert_raises(Arena::UsageError, yaml) { Arena::Plan::RequestsFile.load(write(dir, yaml)) }
        assert_match message, error.message
        refute_includes error.message, "\n"
      end
    end
  end

  def test_redirect_to_https_of_the_same_path_names_force_ssl
    raw = "HTTP/1.1 301 Moved Permanently\r\nlocation: https://127.0.0.1:9/items/7\r\ncontent-length: 0\r\n\r\n"
    outcome = verify(raw, Arena::Plan::Workloads.custom("/items/7"))
    refute outcome.ok
    assert_equal "status 301, expected 200 (redirect to https://127.0.0.1:9/items/7): the app forces SSL " \
      "(Rails `config.force_ssl`): add `--header 'X-Forwarded-Proto: https'`", outcome.problems.first
    other = verify(raw.sub("/items/7", "/login"), Arena::Plan::Workloads.custom("/items/7"))
    assert_equal "status 301, expected 200 (redirect to https://127.0.0.1:9/login)", other.problems.first
  end

  def test_headers_go_with_verification_and_a_close_delimited_body_passes
    seen = []
    raw = "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nhello"
    probe = Canned.new(raw, seen)
    wl = Arena::Plan::Workload.new(name: "a", path: "/a", method: "GET", expect_status: 200, expect_body: "hello", headers: {"X-A" => "1"})
    outcome = Arena::Verify.new(bind: Arena::System::Bind.tcp(port: 1), probe: probe, headers: {"X-Forwarded-Proto" => "https"}).check(wl)
    assert outcome.ok, outcome.problems.inspect
    assert_equal [["GET", "/a", {"X-Forwarded-Proto" => "https", "X-A" => "1"}]], seen
  end

  def test_a_mix_is_verified_request_by_request
    Dir.mktmpdir do |dir|
      file = Arena::Plan::RequestsFile.load(write(dir, "requests: {a: {path: /a, expect_body: 'yes'}, b: {path: /b, expect_body: 'yes'}}\nmixes: {m: {a: 1, b: 1}}\n"))
      answer = ->(path) { "HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n#{(path == "/a") ? "yes" : "no!"}" }
      outcome = verify(answer, file.workloads.first)
      assert_equal ["b: body lacks \"yes\""], outcome.problems
    end
  end

  def test_bundler_conflicts_become_one_line
    molinillo = <<~TEXT
      Bundler could not find compatible versions for gem "nokogiri":
        In snapshot (Gemfile.lock):
          nokogiri (= 1.18.10)

        In Gemfile:
          actionpack (~> 7.2.3) was resolved to 7.2.4, which depends on
            nokogiri (>= 1.8.5)
      Bundler could not find compatible versions for gem "prism":
        In snapshot (Gemfile.lock):
          prism (= 2.1.0)

        In Gemfile:
          railties (~> 7.2.3) was resolved to 7.2.4, which depends on
            irb (~> 1.13) was resolved to 1.18.0, which depends on
              prism (>= 1.3.0)

          itsi-server (>= 0.2.27) was resolved to 0.2.27, which depends on
            prism (~> 1.4)
    TEXT
    assert_equal "itsi-server 0.2.27 needs prism ~> 1.4, the app locks prism 2.1.0",
      Arena::Bundle::Reason.from_output(molinillo, app_versions: {"prism" => "2.1.0", "nokogiri" => "1.18.10"})
    assert_equal ["itsi-server"], Arena::Bundle::Reason.named(molinillo, %w[itsi-server falcon])
    assert Arena::Bundle::Reason.network?("Could not reach host index.rubygems.org. Check your network connection and try again.")
  end

  # No registry: what is installed is added, what would have to be fetched
  # is named in one line, and nothing stops the servers already there.
  def test_no_registry_reachable_names_the_gems_not_fetched
    Dir.mktmpdir do |cache|
      app = Arena::Bundle::AppSource.user(File.join(FIXTURES, "sinatra"))
      offline = OfflineBundler.new
      result = Arena::Bundle::Overlay.new(app: app, cache_root: cache, bundler: offline,
        servers: %w[puma falcon thin].map { |k| Arena::Servers.fetch(k) }).call
      assert_equal :app, result.entry("puma").state
      assert_equal %i[unfetched unfetched], %w[falcon thin].map { |k| result.entry(k).state }
      assert_equal ["not fetched (no registry reachable): falcon, thin; skipped: falcon, thin"], result.notes
      assert_nil result.gemfile
      assert_equal ["lock --local", "lock --local", "lock", "lock --local", "lock"], offline.calls.first(5)
    end
  end

  # Local resolution finds nothing installed; the registry cannot be reached.
  class OfflineBundler
    attr_reader :calls

    def initialize = @calls = []

    def call(_gemfile, argv, log_path:)
      @calls << argv.join(" ")
      output = argv.include?("--local") ? "Could not find gem 'falcon' in locally installed gems." : "Could not reach host index.rubygems.org."
      Arena::Bundle::BundlerCommand::Outcome.new(ok: false, output: output)
    end
  end

  private

  def write(dir, yaml)
    path = File.join(dir, "requests.yml")
    File.write(path, yaml)
    path
  end

  def verify(raw, workload)
    Arena::Verify.new(bind: Arena::System::Bind.tcp(port: 1), probe: Canned.new(raw, [])).check(workload)
  end
end
