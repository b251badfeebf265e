# frozen_string_literal: true

# test: two at most (it boots a user's app on every server, as your_app_sinatra_test does: the third beside them left Passenger no request in 0.5 s)

require_relative "../test_helper"
require_relative "../support/your_app_case"

# A plain Rack 2 app (test/fixtures/apps/rack2) whose lock conflicts with a
# server, and one with no registry reachable.
class YourAppRack2Test < Arena::YourAppCase
  # The rack2 fixture's lock has json 3; itsi-server 0.2.27 needs json ~> 2.
  def test_a_server_that_conflicts_with_the_apps_lock_is_reported_and_skipped
    list = servers
    outcome = run_app("run", "--app", File.join(FIXTURES, "rack2"), "--servers", list.join(" "), "--workload", "/json=200:rack",
      "-d", "0.5", "-w", "0.2")
    assert outcome.status.success?, outcome.describe
    said = "itsi: cannot be added beside this app: itsi-server 0.2.27 needs json ~> 2, the app locks json 3.1.0"
    assert outcome.stderr.lines.any? { |l| l.start_with?(said) }, outcome.stderr
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
        "-d", "0.5", "-w", "0.2", cache: cache, env: {"BUNDLE_MIRROR__ALL" => "http://127.0.0.1:9"})
      assert outcome.status.success?, outcome.describe
      assert_includes outcome.stderr.lines.map(&:chomp), "not fetched (no registry reachable): itsi-server; skipped: itsi"
      assert_measured_without_errors(outcome, %w[puma thin])
    end
  end
end
