# frozen_string_literal: true

# test: two at most (as the third beside it, database_test and preset_test slowed its Rails boots until Passenger completed no request in its 0.5 s)

require_relative "../test_helper"
require_relative "../support/your_app_case"
require "yaml"

# A user's Rails app (test/fixtures/apps/rails) on every server behind a
# forwarded-proto header, the force_ssl hint without it, a requests-file mix.
class YourAppRailsTest < Arena::YourAppCase
  # Agoo is left out on Rails: it never closes a response body (Rack's
  # BodyProxy), so Rails' per-request cleanup never runs; request-id log
  # tags pile up and it slows to a crawl, then segfaults (README).
  def test_every_server_runs_the_rails_app_behind_a_forwarded_proto_header
    app = File.join(FIXTURES, "rails")
    before = fingerprint(app)
    list = servers(except: ["agoo"])
    outcome = run_app("run", "--app", app, "--servers", list.join(" "), "--header", FORWARDED,
      "--workload", "/items/7", "-d", "0.5", "-w", "0.2", timeout: 600)
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

  def test_a_requests_file_mix_runs_as_one_workload_with_its_bodies_checked
    app = File.join(FIXTURES, "rails")
    outcome = run_app("run", "--app", app, "--servers", "puma", "--header", FORWARDED,
      "--requests", File.join(app, "requests.yml"), "-d", "0.5", "-w", "0.2")
    assert outcome.status.success?, outcome.describe
    assert_equal ["production"], outcome.measurements.map { |m| m["workload"] }.uniq
    m = outcome.measurements.first
    assert_includes m["engine_argv"], "--mix"
    assert_equal 0, arena_errors(m), outcome.describe
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
end
