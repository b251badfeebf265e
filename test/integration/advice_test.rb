# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "json"
require "shellwords"

# Advice that works for the run it came from: every command a report
# suggests is parsed and built by the same Planner::Builder `arena run` uses, in
# the context it was printed for (the built-in app, or the user's app).
class AdviceTest < Minitest::Test
  FIXTURE = File.expand_path("../fixtures/results/steady/results.json", __dir__)
  SINATRA = File.expand_path("../fixtures/apps/sinatra", __dir__)

  def builtin_document = Arena::Results::Document.from_h(JSON.parse(File.read(FIXTURE)))

  # The same measurements, as if made on the Sinatra fixture app with two
  # paths of its own (one with a query string and an expected body).
  def app_document
    h = JSON.parse(File.read(FIXTURE))
    paths = {"server" => "/items/7?sort=name", "primes" => "/"}
    h["plan"]["app"] = {"rackup" => File.join(SINATRA, "config.ru"), "builtin" => false}
    h["plan"]["workloads"] = [{"name" => "/items/7?sort=name", "path" => "/items/7?sort=name", "method" => "GET",
                               "expect_status" => 200, "expect_body" => "item 7"},
      {"name" => "/", "path" => "/", "method" => "GET", "expect_status" => 200}]
    h["measurements"].each { |m| m["workload"] = paths.fetch(m["workload"], m["workload"]) }
    Arena::Results::Document.from_h(h)
  end

  def suggestions(document)
    Arena::Report::Recommend.new(document).call.filter_map(&:run).select { |run| run.start_with?("arena run") }
  end

  def build(command)
    argv = Shellwords.split(command)
    assert_equal %w[arena run], argv.first(2), command
    Arena::Planner::Builder.new(machine: Arena::Plan::Machine.new(cores: 2), say: ->(_) {}).parse(argv.drop(2), banner: "test").build
  end

  def test_every_suggestion_of_a_builtin_run_builds_a_plan
    runs = suggestions(builtin_document)
    refute_empty runs
    runs.each { |run| assert build(run).app.builtin, run }
  end

  def test_every_suggestion_of_an_app_run_builds_a_plan_on_that_app_with_its_paths
    runs = suggestions(app_document)
    assert_includes runs, "arena run --app #{SINATRA} --workload '/items/7?sort=name=200:item 7' --workload / " \
      "--scenario crash,restart"
    runs.each do |run|
      plan = build(run)
      assert_equal File.join(SINATRA, "config.ru"), plan.app.rackup, run
      assert_equal [["/items/7?sort=name", 200, "item 7"], ["/", 200, nil]],
        plan.workloads.map { |w| [w.path, w.expect_status, w.expect_body] }, run
    end
  end

  # The built-in workload names mean nothing on a user's app: the use cases
  # judged on them say so instead of suggesting `--workload pi` there.
  def test_an_app_run_ranks_its_own_paths_and_suggests_no_builtin_workload
    recs = Arena::Report::Recommend.new(app_document).call.to_h { |r| [r.use_case, r] }
    # One run each: the pick's significance test cannot run, so no pick; the
    # line still names the app's own path.
    assert_nil recs["fast request/response API"].pick
    assert_match(/on \/items\/7\?sort=name;/, recs["fast request/response API"].because)
    cpu = recs["CPU-bound work"]
    assert_nil cpu.run
    assert_equal "not measured: judged on the built-in app's pi, trial, primes; name a path of your app that does " \
      "this with --workload", cpu.because
  end
end
