# frozen_string_literal: true

# test: two at most (it boots a user's app on every server: beside your_app_rack2_test and scenario_outcomes_test, Passenger completed no request in its 0.5 s; fresh-check at bade531)

require_relative "../test_helper"
require_relative "../support/your_app_case"

# A user's Sinatra app (test/fixtures/apps/sinatra) on every server, and
# the overlay bundle built once for it and reused.
class YourAppSinatraTest < Arena::YourAppCase
  def test_every_server_runs_the_sinatra_app_and_its_files_stay_as_they_were
    app = File.join(FIXTURES, "sinatra")
    before = fingerprint(app)
    outcome = run_app("run", "--app", app, "--servers", servers.join(" "), "--workload", "/items/7", "-d", "0.5", "-w", "0.2")
    assert outcome.status.success?, outcome.describe
    assert_measured_without_errors(outcome, servers)
    assert_equal before, fingerprint(app), "the app's Gemfile and Gemfile.lock changed"
  end

  # Inside the app's directory (no --app) the run reuses the same overlay,
  # runs that app and says so first: one run for both (a Sinatra boot and
  # its loads, about 15 s, were a test of their own).
  def test_the_overlay_is_built_once_and_reused_inside_the_app_directory_too
    app = File.join(FIXTURES, "sinatra")
    Dir.mktmpdir("arena-cache") do |cache|
      first = run_app("servers", "--app", app, cache: cache)
      assert first.status.success?, first.describe
      assert_match(/^overlay bundle built in [\d.]+ s: \d+ server\(s\) added/, first.stderr)
      assert_match(/falcon\s+\|\s+yes\s+\|\s+[\d.]+\s+\|\s+added by Arena/, first.stdout)
      assert_match(/puma\s+\|\s+yes\s+\|\s+[\d.]+\s+\|\s+in the app's bundle/, first.stdout)
      # A system program that is missing says why, as without --app.
      jruby = Arena::Servers::PumaJruby.install(Arena::Bundle::AppSource.builtin)
      assert_match(/puma-jruby\s+\|\s+no\s+\|\s+-\s+\|\s+#{Regexp.escape(jruby.why)}/, first.stdout) unless jruby.found
      second = run_app("servers", "--app", app, cache: cache)
      assert_match(/^overlay bundle reused: /, second.stderr, second.describe)
      # Another --servers set uses the same bundle: it holds every server that can join.
      third = run_app("run", "--servers", "falcon", "--workload", "/", "--workload", "/items/7", "-d", "0.2", "-w", "0",
        cache: cache, chdir: app)
      assert third.status.success?, third.describe
      assert_equal "benchmarking the app in this directory (#{app}/config.ru); --app chooses another", third.stderr.lines.first.chomp
      assert_match(/^overlay bundle reused: 1 server\(s\) added/, third.stderr, third.describe)
      # Repeated --workload flags add up (rounds shuffle their order).
      assert_equal ["/", "/items/7"], third.measurements.map { |m| m["workload"] }.uniq.sort
      only = run_app("servers", "--app", app, "--only-app-bundle", cache: cache)
      assert_match(/falcon\s+\|\s+no\s+\|\s+-\s+\|\s+gem falcon is not in Gemfile/, only.stdout, only.describe)
    end
  end
end
