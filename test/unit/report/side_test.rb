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

    HOOKS = %i[finding rounds_finding brief rounds_brief marks event_label sections overall_findings overall_briefs].freeze

    # A scenario with a side in report/sides/ says nothing itself: what it
    # still defined would be shadowed by its side, and drift from it.
    def test_each_side_is_its_scenarios_only_words
      refute_empty Report::Side.registry
      Report::Side.registry.each do |key, side|
        scenario = Scenarios.fetch(key)
        assert_equal scenario.name.split("::").last.delete_suffix("Scenario"), side.name.split("::").last, "#{key}: the side is named as its scenario"
        kept = scenario.singleton_methods(false) & HOOKS
        assert_empty kept, "Scenarios::#{scenario.name.split("::").last} still says #{kept.join(", ")}: move it to #{side.name}"
      end
    end

    # Crash, restart and profile draw a timeline per measurement, named by its event.
    def test_a_timeline_side_draws_each_measurement_on_its_timeline
      document = Results::Document.load(File.expand_path("../../fixtures/results/scenarios", __dir__))
      ids = ->(scenario) { (1..scenario.measured_in(document).size).map { |i| "timeline-#{scenario.key}-#{i}" } }
      crash = Report::Side.of(Scenarios::Crash)
      assert_kind_of Report::TimelineSide, crash
      assert_equal ids.call(Scenarios::Crash), crash.sections(document, colors: ->(_) { "#0072B2" }).map(&:id)
      assert_equal "worker killed", crash.event_label(document.measured.find { |m| m.scenario == "crash" })
      restart = Report::Side.of(Scenarios::Restart).sections(document, colors: ->(_) { "#0072B2" })
      assert_equal ids.call(Scenarios::Restart), restart.map(&:id)
      refute_empty restart
    end

    def scenarios_fixture = Results::Document.load(File.expand_path("../../fixtures/results/scenarios", __dir__))

    # Section ids a side draws of a document.
    def drawn(side, document) = side.sections(document, colors: ->(_) { "#0072B2" }).map(&:id)

    # The side found for a scenario, of the class it should be.
    def side_of(scenario, kind) = Report::Side.of(scenario).tap { |side| assert_kind_of kind, side }

    # A measurement's sentence matches `sentence` and its terminal line says `word` first.
    def assert_words(side, m, sentence, word)
      assert_match sentence, side.finding(m)
      assert_equal word, side.brief(m).first
    end

    def assert_says_nothing_of(side, m)
      assert_nil side.finding(m)
      assert_nil side.brief(m)
    end

    # Slow clients: the share of good throughput kept beside them, in words and in bars.
    def test_the_slow_clients_side_words_and_draws_the_share_kept
      document = scenarios_fixture
      side = side_of(Scenarios::SlowClientsScenario, Report::Sides::SlowClients)
      beside = document.measured.find { |m| m.scenario == "slow-clients" && m.extra["count"] }
      assert_words side, beside, /\A\S+ \S+ slow-clients: with \d+ slow \w+ clients good throughput is \d+% of alone\z/, "slow-clients"
      alone = document.measured.find { |m| m.scenario == "slow-clients" && !m.extra["count"] }
      assert_says_nothing_of side, alone
      assert_equal ["slow-clients"], drawn(side, document)
      assert_empty drawn(side, Results::Document.new(measurements: [alone]))
    end

    # A break point: its summary in words, its levels drawn against concurrency.
    def test_the_breakpoint_side_words_its_summary_and_draws_its_levels
      side = side_of(Scenarios::Breakpoint, Report::Sides::Breakpoint)
      document = scenarios_fixture
      found = document.measurements.find { |m| m.scenario == "breakpoint" && m.summary? }
      assert_words side, found, /\A\S+ \S+ breakpoint: (last clean at \d+ connections|no clean level)/, "breakpoint"
      assert_says_nothing_of side, document.measured.find { |m| m.scenario == "breakpoint" }
      levels = side.sections(document, colors: ->(_) { "#0072B2" }).first
      assert_equal "breakpoint", levels.id
      assert_equal document.measured.count { |m| m.scenario == "breakpoint" }, levels.rows.size
      assert_empty drawn(side, Results::Document.new(measurements: [found]))
    end

    # A rate sweep: its knee in words, one round or several, and its curve drawn.
    def test_the_rate_side_words_its_knee_and_draws_its_curve
      document = scenarios_fixture
      side = side_of(Scenarios::Rate, Report::Sides::Rate)
      curve = document.measurements.find { |m| m.scenario == "rate" && m.summary? }
      assert_words side, curve, /\A\S+ \S+ rate: .+, with p99 <= \d+ ms/, "rate"
      assert_equal side.finding(curve), side.rounds_finding([curve])
      assert_equal side.brief(curve), side.rounds_brief([curve])
      assert_match(/ rate over 2 rounds: /, side.rounds_finding([curve, curve]))
      assert_says_nothing_of side, document.measured.find { |m| m.scenario == "rate" }
      assert_equal ["rate"], drawn(side, document)
    end

    # A scenario whose report side is still its own (as a scenario is before
    # its side moves to report/sides/).
    module Unmoved
      def self.key = "unmoved"

      def self.finding(m) = "finding #{m}"

      def self.rounds_finding(ms) = "rounds #{ms.join}"

      def self.brief(m) = ["word", m]

      def self.rounds_brief(ms) = ["words", ms.join]

      def self.marks(m) = [{x: m}]

      def self.event_label(m) = "event #{m}"

      def self.sections(document, colors:) = [document, colors]

      def self.overall_findings(document) = ["overall #{document}"]

      def self.overall_briefs(document, labels) = [[document, labels]]
    end

    def test_a_scenario_without_a_side_answers_for_itself
      side = Report::Side.of(Unmoved)
      assert_instance_of Report::Side, side
      assert_equal "finding 1", side.finding(1)
      assert_equal "rounds 12", side.rounds_finding([1, 2])
      assert_equal ["word", 1], side.brief(1)
      assert_equal ["words", "12"], side.rounds_brief([1, 2])
      assert_equal [{x: 1}], side.marks(1)
      assert_equal "event 1", side.event_label(1)
      assert_equal [:doc, :colors], side.sections(:doc, colors: :colors)
      assert_equal ["overall doc"], side.overall_findings("doc")
      assert_equal [%w[doc labels]], side.overall_briefs("doc", "labels")
    end
  end
end
