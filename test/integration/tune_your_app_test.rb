# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/your_app_case"
require "json"

# `arena tune --app DIR` on a stock Rails app, as the README gives it: the
# app forces SSL, so it gets the header its TLS proxy sends; what to load is
# asked of the app; what it runs today (the Rails default here: no
# config/puma.rb) is the baseline the answer is measured against, in
# confirmation rounds of their own. And an app on which nothing answers
# 2xx stops at once, exit 2, naming the paths it tried.
class TuneYourAppTest < Arena::YourAppCase
  RAILS = File.join(FIXTURES, "rails")

  def test_a_stock_rails_app_that_forces_ssl_gets_an_answer_with_no_flags
    before = fingerprint(RAILS)
    # Only the budget is given (and Puma alone): the test's time, not the answer's.
    outcome = run_app("tune", "--app", RAILS, "--servers", "puma", "--max-time", "75", "-d", "0.5", "-w", "0.2",
      "--out", File.join(@tmp, "tune"), timeout: 240)
    assert outcome.status.success?, outcome.describe
    assert_match(/the app forces SSL: sending X-Forwarded-Proto: https/, outcome.stderr)
    assert_match(%r{^tune: no --workload: asked the app \d+ paths .*; loading GET, equal shares:\ntune:   1 /items, 1 /items/1$},
      outcome.stderr)
    assert_match(/^tune: measured against the Rails default \(puma, 3 threads, 1 process\)$/, outcome.stderr)
    assert_match(/^puma workers=\d+ threads=\d+: (sustains|unsustained)/, outcome.stderr, "a line a candidate, led by its server")
    paths = Regexp.union(@tmp, Dir.home, FIXTURES)
    wide = (outcome.stderr.lines + outcome.stdout.lines).map(&:chomp).reject { |l| l.size <= 100 || l.match?(paths) }
    assert_empty wide, "every line fits 100 columns, but for file paths"
    tune = JSON.parse(File.read(File.join(@tmp, "tune", "tune.json")))
    answer = tune.fetch("answer")
    assert_equal "puma", answer["server"], outcome.describe
    assert_equal "the Rails default (puma, 3 threads, 1 process)", answer.dig("baseline", "config")
    # Each confirmation round starts each config afresh (two Rails boots a
    # round here), so the 30 s kept of 75 s hold 1-3 rounds as the machine
    # allows: at least one, and the answer's rounds are the confirmation's.
    assert_operator answer["rounds"], :>=, 1, "confirmation rounds"
    assert_equal answer["rounds"], answer.dig("confirmation", "rounds")
    results = JSON.parse(File.read(File.join(@tmp, "tune", "results.json")))
    confirmation = results["measurements"].select { |m| m["variant"] == "confirmation" }
    refute_empty confirmation, "the confirmation rounds are measurements of their own"
    assert confirmation.all? { |m| m.dig("summary", "good_rps").to_f.positive? }
    assert_operator results["machine_speed"].size, :>=, confirmation.size, "a speed reading before each load"
    block = outcome.stdout.lines.map(&:chomp).drop_while { |l| !l.start_with?("THE ANSWER: ") }
    assert_operator block.size, :<=, 15, block.join("\n")
    assert block.all? { |l| l.size <= 100 || l.include?("/") }, block.join("\n")
    # The gain, why you keep what you run, or (one round) that the rounds could not compare them.
    assert_match(/\A  (\+\d.*% over|keep what you run|.*reads|it serves|no other config|.*: the rounds could not compare it) /, block[1] + " ")
    assert_equal before, fingerprint(RAILS), "the app's files changed"
  end

  def test_an_app_on_which_nothing_answers_2xx_stops_at_once_naming_the_paths
    started = Arena::Support::Clock.now
    outcome = run_app("tune", "--app", RAILS, "--servers", "puma", "--no-proxy-headers", "--out", File.join(@tmp, "none"), timeout: 90)
    assert_equal 2, outcome.status.exitstatus, outcome.describe
    assert_operator Arena::Support::Clock.now - started, :<, 60
    line = outcome.stderr.lines.grep(/no path answered 2xx/).first
    assert_match %r{tried / \(301 to https://.*\), /items \(301 to https://}, line.to_s, outcome.describe
    refute_match(/THE ANSWER/, outcome.stdout)
  end

  # --dry-run says the plan and its time, as the tune would begin, and
  # starts no server: it once ran the whole tune.
  def test_a_dry_run_says_the_plan_and_starts_no_server
    out = File.join(@tmp, "dry")
    outcome = run_app("tune", "--app", RAILS, "--servers", "puma", "--servers", "falcon", "--dry-run", "--out", out, timeout: 90)
    assert outcome.status.success?, outcome.describe
    assert_match(/^tune: the app boots in .* s and takes .* ms a request in process/, outcome.stderr)
    assert_match(/^tune: \d+ of 600 s kept for /, outcome.stderr)
    assert_match(/^tune: --dry-run: puma, falcon; no server started/, outcome.stderr)
    assert_empty outcome.stdout
    refute File.exist?(File.join(out, "results.json")), "no results: nothing was measured"
  end

  # Several --workload paths are searched as one mix, each an equal share,
  # from the start's measurement to the confirmation rounds.
  def test_several_workloads_are_tuned_as_one_mix
    outcome = run_app("tune", "--app", RAILS, "--servers", "puma", "--workload", "/items,/items/3=200:\"id\":3", "--max-time", "60",
      "-d", "0.5", "-w", "0.2", "--out", File.join(@tmp, "mix"), timeout: 200)
    assert outcome.status.success?, outcome.describe
    assert_match(%r{^tune: 2 workloads as one mix, equal shares: 1 /items, 1 /items/3$}, outcome.stderr)
    results = JSON.parse(File.read(File.join(@tmp, "mix", "results.json")))
    assert_equal ["/items+/items/3"], results["measurements"].map { |m| m["workload"] }.uniq, "every measurement loads the mix"
  end

  # Every server failed (a path the app does not route): no answer is not a success.
  def test_a_tune_in_which_no_server_could_be_measured_exits_2
    outcome = run_app("tune", "--app", RAILS, "--servers", "puma", "--workload", "/nope", "--max-time", "60",
      "--out", File.join(@tmp, "nothing"), timeout: 120)
    assert_equal 2, outcome.status.exitstatus, outcome.describe
    assert_match(/\ATHE ANSWER: none/, outcome.stdout.lines.grep(/THE ANSWER/).first.to_s, outcome.describe)
  end
end
