# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require_relative "../support/database_case"
require "arena"
require "fileutils"
require "timeout"

# The tfb-rack preset on one real server (Puma) and a real PostgreSQL that
# Arena makes and seeds: every test type passes TechEmpower's rules and
# serves without errors. Then the same app broken twice (fortunes left
# unsorted, `queries` clamped to 0 instead of 1) fails verification with
# those words, and those workloads are never loaded.
class TfbTest < Arena::ArenaCase
  include Arena::DatabaseCase

  APP = File.join(ROOT, "presets/tfb-rack")

  def setup
    super
    skip "PostgreSQL is not installed (script/setup)" unless Arena::Launch::Database::Postgres.bin_dir
    require_app_bundle(APP, "tfb-rack")
  end

  # No warm-up to a steady state (up to 2 s a workload) and no round
  # lengthened to hold 2,000 requests (up to 5 s on the database
  # workloads): the tests judge verification, errors and connections, not a rate.
  def run_preset(*args)
    arena("run", "--preset", "tfb-rack", "--servers", "puma:workers=1,threads=4", "-c", "8", "-d", "0.3", "-w", "0.1",
      "--warmup-max", "0", "--round-requests", "0", *args, timeout: 240)
  end

  def test_every_test_type_passes_verification_and_serves
    outcome = run_preset
    assert outcome.status.success?, outcome.describe
    assert_match(/loading \S+arena-db\.sql/, outcome.stderr)
    verify = outcome.results["servers"].first["verify"]
    assert_equal %w[json plaintext db queries fortunes updates], verify.map { |v| v["workload"] }
    verify.each { |v| assert v["ok"], "#{v["workload"]}: #{v["problems"]}" }
    assert_equal 6, outcome.measurements.size
    outcome.measurements.each do |m|
      assert_equal 0, arena_errors(m), "#{m["workload"]}: #{m.dig("load", "errors")}"
      assert_operator m.dig("load", "good", "completed"), :>, 0, m["workload"]
      assert_includes 1..4, m.dig("database", "connections"), "#{m["workload"]}: one process, a connection per busy thread"
    end
  end

  def test_a_broken_answer_fails_verification
    broken = File.join(@tmp, "tfb-broken")
    FileUtils.cp_r(APP, broken)
    ru = File.join(broken, "config.ru")
    source = File.read(ru)
    source = source.sub("rows.sort_by! { |_, message| message }", "rows") # fortunes unsorted
    source = source.sub("number.clamp(1, MAX_QUERIES)", "number.clamp(0, MAX_QUERIES)") # queries=0 gives none
    File.write(ru, source)
    outcome = run_preset("--app", broken, "--workload", "fortunes,queries,db")
    assert outcome.status.success?, outcome.describe # a failed workload is a finding; db still runs
    verify = outcome.results["servers"].first["verify"].to_h { |v| [v["workload"], v] }
    assert_equal ["fortunes are not sorted by message"], verify["fortunes"]["problems"]
    assert_equal ["/queries?queries=0: expected 1 World objects, got 0"], verify["queries"]["problems"]
    assert verify["db"]["ok"], verify["db"]["problems"].inspect
    assert_equal ["db"], outcome.measurements.map { |m| m["workload"] }, "a workload that fails verification is never loaded"
    assert_match(/verified fortunes FAILED \(fortunes are not sorted by message\), queries FAILED/, outcome.stderr)
  end
end
