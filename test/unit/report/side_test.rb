# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # A scenario's report side: the words and charts of its measurements live in
  # report/ (Report::Sides), found by the scenario's key; a scenario without a
  # side of its own yet answers for itself through Report::Side.
  class ReportSideTest < Minitest::Test
    cover "Arena::Report::Side*"
    cover "Arena::Report::Sides*"

    def summary(extra) = Results::Measurement.new(server: "puma:workers=2", workload: "pi", scenario: "sustained",
      variant: "rate", kind: "summary", extra: extra).freeze

    def test_the_sustained_side_words_and_draws_its_summaries
      side = Report::Side.of(Scenarios::Sustained)
      assert_kind_of Report::Sides::Sustained, side
      m = summary({"sustained_rps" => 6790.0, "slo_ms" => 100, "closed_max_rps" => 9060.0, "pss_mib" => 123.0})
      assert_equal "puma:workers=2 pi: sustains 6,790 req/s with p99 <= 100 ms (closed maximum 9,060 req/s, PSS 123.0 MiB)", side.finding(m)
      assert_equal ["sustained", "6.79k req/s at p99 ≤ 100 ms; closed max 9.06k, PSS 123 MiB"], side.brief(m)
      assert_equal side.finding(m), side.rounds_finding([m])
      assert_equal side.brief(m), side.rounds_brief([m])
      unsustained = summary({"sustained_rps" => 0, "slo_ms" => 100, "closed_max_rps" => 900.0})
      assert_equal ["sustained", "no rate at p99 ≤ 100 ms; closed max 900, PSS -"], side.brief(unsustained)
      assert_nil side.finding(Results::Measurement.new(server: "puma", workload: "pi", scenario: "sustained", kind: "run").freeze)
      assert_equal ["sustained"], side.sections(Results::Document.new(measurements: [m]), colors: ->(_) { "#0072B2" }).map(&:id)
    end

    def test_a_scenario_without_a_side_answers_for_itself
      side = Report::Side.of(Scenarios::Crash)
      assert_instance_of Report::Side, side
      crash = Results::Document.load(File.expand_path("../../fixtures/results/scenarios", __dir__)).measured.find { |m| m.scenario == "crash" }
      assert_equal Scenarios::Crash.finding(crash), side.finding(crash)
      assert_equal Scenarios::Crash.brief(crash), side.brief(crash)
      assert_equal Scenarios::Crash.marks(crash), side.marks(crash)
    end
  end
end
