# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Each row against its group's reference, paired on the rounds.
class ReportRelativeTest < Minitest::Test
  cover "Arena::Report::Relative*"

  Relative = Arena::Report::Relative
  DRIFT = [0.8, 1.2, 0.9, 1.15, 0.85, 1.05].freeze

  def m(server, rps, round, workload: "server")
    {"server" => server, "workload" => workload, "scenario" => "steady", "variant" => "keep-alive", "repeat" => round,
     "load" => {"throughput_rps" => rps, "requests" => {"completed" => 100}, "latency_us" => {"count" => 100, "p99" => 1000}}}
  end

  def rows(measurements) = Arena::Report::Rows.from(Arena::Results::Document.from_h({"measurements" => measurements}))

  # The machine's drift (0.8-1.2) in every absolute figure; iodine at 1.82×
  # puma (±0.5% of its own) in every round.
  def drifting
    DRIFT.each_with_index.flat_map do |d, i|
      [m("puma:threads=5", 1000 * d, i + 1), m("iodine:workers=2", 1820 * d * (1 + 0.005 * (-1)**i), i + 1)]
    end
  end

  def test_the_ratio_cancels_the_drift_its_absolute_figures_carry
    list = rows(drifting)
    values = Relative.of(list)
    puma = values[Relative.key(list.find { |r| r.server.start_with?("puma") })]
    iodine = values[Relative.key(list.find { |r| r.server.start_with?("iodine") })]
    assert iodine.reference?
    assert_equal "reference", iodine.to_s
    refute puma.reference?
    assert_in_delta 1 / 1.82, puma.ratio, 0.005
    assert_operator puma.half_pct, :<, 1.0, "paired: the drift cancels"
    assert_operator list.first.interval.half_width_pct, :>, 10.0, "each absolute figure carries it"
    assert_equal 6, puma.n
    assert_match(/\A0\.55× iodine ±0\.\d% n=6\z/, puma.to_s)
    assert_equal "paired t on log ratios", puma.difference.method
  end

  def test_a_baseline_is_the_reference_where_it_ran
    list = rows(drifting)
    values = Relative.of(list, baseline: "puma:threads=5")
    iodine = values[Relative.key(list.find { |r| r.server.start_with?("iodine") })]
    assert_match(/\A1\.82× puma ±0\.\d% n=6\z/, iodine.to_s)
    assert_in_delta 1.82, iodine.ratio, 0.01
    fastest = Relative.of(list, baseline: "thin")
    assert fastest[Relative.key(list.find { |r| r.server.start_with?("iodine") })].reference?, "a baseline not in the group: the fastest"
  end

  def test_groups_labels_and_rows_without_a_partner
    list = rows(drifting + [m("puma:threads=5", 50, 1, workload: "pi"), m("puma:threads=8", 60, 1, workload: "pi"),
      m("puma:threads=5", 70, 1, workload: "json")])
    values = Relative.of(list)
    pi = list.select { |r| r.workload == "pi" }
    five = values[Relative.key(pi.find { |r| r.server == "puma:threads=5" })]
    assert_equal "0.83× puma:threads=8 n=1", five.to_s, "two pumas: the whole label; one round: no ±"
    assert_nil five.half_pct
    assert_nil values[Relative.key(list.find { |r| r.workload == "json" })], "alone in its group"
    zero = rows([m("a", 100, 1), m("b", 0, 1)])
    assert_empty Relative.of(zero), "a row that served nothing has no ratio, and leaves one row"
  end

  def test_an_equivalent_ratio_is_marked_and_recorded
    same = DRIFT.each_with_index.flat_map { |d, i| [m("a", 1000 * d, i + 1), m("b", 1010 * d, i + 1)] }
    list = rows(same)
    values = Relative.of(list)
    a = values[Relative.key(list.find { |r| r.server == "a" })]
    assert_equal "0.99× b ±0.0% ≈ n=6", a.to_s
    records = Relative.records(list)
    assert_equal [{"server" => "a", "workload" => "server", "scenario" => "steady", "variant" => "keep-alive", "ratio" => 0.9901,
                   "half_width_pct" => 0.0, "reference" => "b", "n" => 6, "method" => "paired t on log ratios", "equivalent" => true, "p_value" => 0.0},
      {"server" => "b", "workload" => "server", "scenario" => "steady", "variant" => "keep-alive", "ratio" => 1.0, "reference" => "b", "n" => 6}], records
  end
end

# --baseline names the reference: a label, or a server's name when one config of it runs.
class BaselineFlagTest < Minitest::Test
  MACHINE = Arena::Plan::Machine.new(cores: 2).freeze

  def plan(*argv) = Arena::TestHelp.plan(*argv, machine: MACHINE)

  def test_a_name_or_a_label_names_one_config_and_reaches_the_table
    assert_equal "webrick", plan("--servers", "puma webrick", "--baseline", "webrick").baseline
    assert_equal "puma:workers=1,threads=5,preload=false", plan("--servers", "puma:workers=1 webrick", "--baseline", "puma").baseline
    assert_nil plan("--servers", "puma webrick").baseline
    error = assert_raises(Arena::UsageError) { plan("--servers", "puma:workers=1 puma:workers=2", "--baseline", "puma") }
    assert_match(/--baseline puma: more than one of this run's servers/, error.message)
    assert_match(/none of this run's servers/, assert_raises(Arena::UsageError) { plan("--servers", "puma", "--baseline", "thin") }.message)
    assert_equal "puma", plan("--servers", "puma", "--aa", "--baseline", "puma").baseline.split(":").first, "the twin is not a second puma"
    measurements = [1, 2, 3].flat_map do |round|
      [["a", 1000], ["b", 2000]].map do |server, rps|
        {"server" => server, "workload" => "server", "scenario" => "steady", "repeat" => round,
         "load" => {"throughput_rps" => rps + round, "requests" => {"completed" => 100}, "latency_us" => {"count" => 100, "p99" => 1000}}}
      end
    end
    doc = Arena::Results::Document.from_h({"plan" => {"baseline" => "a"}, "measurements" => measurements})
    b = Arena::Report::Rows.from(doc).find { |r| r.server == "b" }
    assert_match(/\A2\.00× a ±\d\.\d% n=3\z/, Arena::Report::Table.new(doc).cells(b)[4], "report.md's and report.html's ratio cell")
    assert_match(/\| b +\| +2,002 ±[\d.]+% \| 2\.00× ±\d\.\d% \| 3 \|/, Arena::Report::Table.new(doc).render, "the terminal's")
  end
end
