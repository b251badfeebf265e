# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "timeout"

# uWSGI as its docs deploy it, and as a Rack 3 app needs it. (Its default's
# goodput against Puma's, a race between two servers, is bench/uwsgi_default's.)
class UwsgiTest < Arena::ArenaCase
  FIXTURE = File.expand_path("../fixtures/no_content_length/config.ru", __dir__)

  def setup
    super
    skip "uwsgi with the rack plugin is not installed" unless File.exist?("/usr/lib/uwsgi/plugins/rack_ruby31_plugin.so")
  end

  # A response without Content-Length (Rack 3, Rails 7.2) used to fail
  # verification with "neither Content-Length nor chunked encoding"; every
  # mode now frames it, an Array body and a streamed one.
  def test_responses_without_content_length_verify_in_every_mode
    app = user_app(File.read(FIXTURE))
    outcome = arena("check", "--app", app, "--servers", "uwsgi uwsgi:mode=http11-socket uwsgi:mode=http-socket",
      "--workload", "/=200:left to the server", "--workload", "/stream=200:part 2")
    assert outcome.status.success?, outcome.describe
    assert_equal 3, outcome.stdout.scan(/^ok /).size, outcome.describe
  end

  # uWSGI forks its workers in C from the master that loaded the app, and
  # tells Ruby nothing: a worker of an app that started a thread at boot
  # (Rails does) never answered. The shim does what Ruby's fork does.
  def test_an_app_that_starts_a_thread_at_boot_is_served
    app = Arena::Bundle::AppSource.user(user_app(<<~RU))
      Thread.new { loop { sleep 0.05 } }
      run ->(env) { [200, {"content-type" => "text/plain", "content-length" => "2"}, ["ok"]] }
    RU
    run = Arena::Launch::LocalServer.new(adapter: Arena::Servers.fetch("uwsgi").new(settings: {"processes" => 2}), app: app,
      bind: Arena::System::Bind.tcp, dir: File.join(@tmp, "server"), ready_timeout: 15)
    run.start
    assert_equal "ok", Arena::Verify::HttpProbe.new(run.bind, timeout: 5).get("/").body
  ensure
    run&.stop
  end
end
