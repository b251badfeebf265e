# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "fileutils"
require "tmpdir"

# `arena report` on what it cannot read (one clear line, exit 1) and on a
# results file of an older schema (a render of what it holds, with a note).
class ReportErrorsTest < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/results", __dir__)

  def setup
    @dir = Dir.mktmpdir("arena-report-")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def report(*argv)
    out = StringIO.new
    err = StringIO.new
    status = Arena::CLI.new(["report", *argv], out: out, err: err).run
    [status, out.string, err.string]
  end

  def fixture(name)
    FileUtils.cp_r(File.join(FIXTURES, name, "."), @dir)
    @dir
  end

  def test_missing_results_file
    status, out, err = report(@dir)
    assert_equal 2, status, "bad input"
    assert_equal "", out
    assert_equal "arena: no results file at #{@dir}/results.json\n", err
  end

  def test_malformed_results_file
    status, _, err = report(fixture("malformed"))
    assert_equal 2, status, "bad input"
    assert_match(%r{\Aarena: #{Regexp.escape(@dir)}/results.json is not valid JSON \(.+\)\n\z}, err)
    refute File.exist?(File.join(@dir, "report.html"))
  end

  def test_json_that_is_not_a_results_document
    File.write(File.join(@dir, "results.json"), "[1, 2]")
    status, _, err = report(@dir)
    assert_equal 2, status, "bad input"
    assert_equal "arena: #{@dir}/results.json is not an Arena results file\n", err
  end

  def test_measurements_that_are_not_a_list
    File.write(File.join(@dir, "results.json"), %({"schema": "arena-results/1", "measurements": {"a": 1}}))
    status, _, err = report(@dir)
    assert_equal 2, status, "bad input"
    assert_equal "arena: #{@dir}/results.json: \"measurements\" is not a list\n", err
  end

  def test_older_schema_renders_what_it_holds_with_a_note
    status, out, err = report(fixture("older-schema"))
    assert_equal 0, status
    note = "arena: note: #{@dir}/results.json is schema arena-results/0; this Arena writes arena-results/1: showing what it holds\n"
    assert_equal note, err.lines.first
    assert_match(/^server · steady +vs the fastest +good req\/s +p99 +memory\npuma:workers=2,threads=2 +fastest +6\.94k +13\.5 ms +-$/, out)
    # The pick closes it, as it closes a run.
    assert_match(/\n\nfast request\/response API: no pick, not distinguishable\n(.*\n)*not measured: 4 use cases .*\n\z/, out)
    markdown = File.read(File.join(@dir, "report.md"))
    assert_includes markdown, "> Note: #{@dir}/results.json is schema arena-results/0"
    assert_includes markdown, "| CPU | not recorded |"
    assert_includes markdown, "| puma:workers=2,threads=2,preload=false | 8.0.2 | ? | ok | `not recorded` |"
    html = File.read(File.join(@dir, "report.html"))
    assert_includes html, "is schema arena-results/0"
    assert_includes html, "<svg"
  end

  def test_format_selects_what_is_written
    status, out, _ = report(fixture("steady"), "--format", "md")
    assert_equal 0, status
    assert_equal "", out
    assert File.exist?(File.join(@dir, "report.md"))
    refute File.exist?(File.join(@dir, "report.html"))
  end

  def test_unknown_format
    status, _, err = report(fixture("steady"), "--format", "pdf")
    assert_equal 2, status
    assert_equal "arena: unknown format \"pdf\" (terminal, md, html)\n", err
  end
end
