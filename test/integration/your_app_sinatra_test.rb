# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/your_app_case"

# A user's Sinatra app (test/fixtures/apps/sinatra) on every server, and
# the overlay bundle built once for it and reused.
class YourAppSinatraTest < Arena::YourAppCase
  def test_every_server_runs_the_sinatra_app_and_its_files_stay_as_they_were
    app = File.join(FIXTURES, "sinatra")
    before = fingerprint(app)
    outcome = run_app("run", "--app", app, "--servers", servers.join(" "), "--workload", "/items/7", "-d", "1", "-w", "0.3")
    assert outcome.status.success?, outcome.describe
    assert_measured_without_errors(outcome, servers)
    assert_equal before, fingerprint(app), "the app's Gemfile and Gemfile.lock changed"
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
end
