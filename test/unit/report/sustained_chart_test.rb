# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # Tune's chart marks as best what tune itself would choose: the most
  # sustained config within the memory budget, never one over it.
  class SustainedChartTest < Minitest::Test
    cover "Arena::Report::SustainedChart*"

    def summary(server, rps, pss)
      Results::Measurement.new(server: server, workload: "pi", scenario: "sustained", variant: "rate", kind: "summary",
        extra: {"sustained_rps" => rps, "closed_max_rps" => rps * 1.5, "p99_ms" => 80.0, "pss_mib" => pss,
                "settings" => {"workers" => 2}}).freeze
    end

    def rows(budget_mib)
      plan = Results::PlanRecord.from_h(budget_mib ? {"tune" => {"memory_mib" => budget_mib}} : {})
      document = Results::Document.new(plan: plan, measurements: [summary("puma:workers=2", 150.0, 180.0),
        summary("puma:workers=4", 260.0, 290.0), summary("puma:workers=8", 400.0, 520.0)])
      Report::SustainedChart.new(document, scenario: Scenarios::Sustained, colors: ->(_) { "#0072B2" }).section.rows.map(&:last)
    end

    # The issue's tune: workers=8 at 520 MiB was marked best under a 300 MiB
    # budget, while tune chose workers=4.
    def test_an_over_budget_config_is_never_marked_best
      assert_equal ["", "best", "over the 300 MiB budget"], rows(300)
      assert_equal ["", "", "best"], rows(nil), "a plain sustained run has no budget"
      assert_equal ["over the 100 MiB budget"] * 3, rows(100), "nothing within the budget: nothing is best"
    end

    def test_the_rule_on_values
      assert_equal :b, Report::SustainedChart.best([[:a, 100, 50], [:b, 200, 100], [:c, 300, 101]], budget_mib: 100)
      assert_equal :c, Report::SustainedChart.best([[:a, 100, 50], [:b, 200, 100], [:c, 300, 101]], budget_mib: nil)
      assert_nil Report::SustainedChart.best([[:a, 0, 50], [:b, 100, nil]], budget_mib: 100), "unsustained, or memory not measured"
      assert_equal :b, Report::SustainedChart.best([[:a, 0, 50], [:b, 100, nil]], budget_mib: nil)
      assert_equal :b, Report::SustainedChart.best([[:a, 100, 50], [:b, 300, 60], [:c, 200, 70]], budget_mib: nil), "the most, wherever it comes"
      assert_equal :b, Report::SustainedChart.best([[:a, nil, 50], [:b, 100, 60]], budget_mib: 100), "no figure: unsustained"
      assert Report::SustainedChart.over_budget?(101.0, 100)
      frontier = ->(points) { Report::SustainedChart.frontier(points) }
      assert_equal [[60.0, 250.0], [100.0, 300.0], [150.0, 400.0]], frontier.call([[100.0, 300.0], [60.0, 250.0], [80.0, 240.0], [120.0, 290.0], [150.0, 400.0]])
      assert_equal [[50.0, 200.0]], frontier.call([[50.0, 100.0], [50.0, 200.0]]), "at the same memory, the most sustained"
      assert_equal [[40.0, 0.0], [50.0, 10.0]], frontier.call([[50.0, 10.0], [40.0, 0.0]]), "an unsustained config at the least memory starts it"
      assert_equal [], frontier.call([])
      refute Report::SustainedChart.over_budget?(100.0, 100)
      refute Report::SustainedChart.over_budget?(nil, 100)
      refute Report::SustainedChart.over_budget?(500.0, nil)
    end
  end
end
