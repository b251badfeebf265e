# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # A scenario's figures are a typed record declared in its own file
  # (scenarios/figures.rb); readers ask the scenario for it. The record must
  # name every figure the scenario writes, or a reader would silently miss it.
  class ScenarioFiguresTest < Minitest::Test
    FIXTURE = File.expand_path("../../fixtures/results/scenarios", __dir__)

    def test_each_record_names_every_figure_its_scenario_wrote
      document = Results::Document.load(FIXTURE)
      declared = Scenarios.all.select { |k| k.const_defined?(:Figures, false) }
      seen = declared.select { |k| k.measured_in(document).any? }
      assert_equal %w[crash restart slow-clients], seen.map(&:key).sort
      seen.each do |klass|
        klass.measured_in(document).each do |m|
          assert_empty m.extra.keys - klass::Figures.members.map(&:to_s), "#{klass.key}: figures its record does not declare"
          figures = klass.figures_of(m)
          assert figures.frozen?
          m.extra.each { |key, value| value.nil? ? assert_nil(figures[key]) : assert_equal(value, figures[key], "#{klass.key} #{key}") }
        end
      end
    end

    def test_a_scenario_answers_only_for_its_own_measurements
      crash = Results::Document.load(FIXTURE).measured.find { |m| m.scenario == "crash" }
      assert_kind_of Scenarios::Crash::Figures, Scenarios::Crash.figures_of(crash)
      assert_nil Scenarios::Restart.figures_of(crash)
      assert_equal "worker killed", Report::Side.of(Scenarios::Crash).event_label(crash)
    end

    def test_the_tune_chart_reads_the_sustained_record
      summary = ->(server, rps, pss) do
        Results::Measurement.new(server: server, workload: "pi", scenario: "sustained", variant: "rate", kind: "summary",
          extra: {"sustained_rps" => rps, "closed_max_rps" => rps * 1.5, "p99_ms" => 80.0, "pss_mib" => pss,
                  "settings" => {"workers" => 2, "threads" => 5}}).freeze
      end
      document = Results::Document.new(measurements: [summary.call("puma:workers=1", 100.0, 90.0), summary.call("puma:workers=2", 180.0, 150.0)])
      section = Report::SustainedChart.new(document, scenario: Scenarios::Sustained, colors: ->(_) { "#0072B2" }).section
      assert_equal [["puma:workers=1", "pi", "100", "150", "80.0 ms", 90.0, ""], ["puma:workers=2", "pi", "180", "270", "80.0 ms", 150.0, "best"]],
        section.rows
    end
  end
end
