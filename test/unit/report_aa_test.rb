# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# A/A: a config and its twin, paired on the rounds; a twin never recommended.
class ReportAATest < Minitest::Test
  cover "Arena::Report::AA*"

  DRIFT = [0.8, 1.2, 0.9, 1.15, 0.85, 1.05].freeze

  def m(server, rps, round)
    {"server" => server, "workload" => "server", "scenario" => "steady", "variant" => "keep-alive", "repeat" => round,
     "load" => {"throughput_rps" => rps, "requests" => {"completed" => 100}, "latency_us" => {"count" => 100, "p99" => 1000}}}
  end

  def doc(measurements) = Arena::Results::Document.from_h({"measurements" => measurements})

  def test_twins_that_read_alike_are_said_so
    same = DRIFT.each_with_index.flat_map do |d, i|
      [m("puma:threads=5", 1000 * d, i + 1), m("puma:threads=5~aa", 1000 * d * (1 + 0.004 * (-1)**i), i + 1), m("iodine", 2000 * d, i + 1)]
    end
    lines = Arena::Report::AA.lines(doc(same))
    assert_equal 1, lines.size
    assert_match(/\AA\/A: puma:threads=5 server steady keep-alive and its twin read alike \(equivalent within ±3%: .*paired t on log ratios, 6 rounds/, lines.first)
    assert_includes Arena::Report::Findings.lines(doc(same)), lines.first
    refute Arena::Report::AA.pairs(Arena::Report::Rows.from(doc(same))).first.different?
  end

  def test_twins_declared_different_are_a_warning
    apart = DRIFT.each_with_index.flat_map { |d, i| [m("puma", 1000 * d, i + 1), m("puma~aa", 1100 * d * (1 + 0.004 * (-1)**i), i + 1)] }
    line = Arena::Report::AA.lines(doc(apart)).first
    assert_match(/\AA\/A WARNING: puma server steady keep-alive and its twin were declared different \(puma~aa is \+10\.0% against puma/, line)
    assert_match(/differences of this size between other configs of this run may be noise\z/, line)
  end

  def test_a_twin_without_its_original_row_and_rows_without_twins_say_nothing
    assert_empty Arena::Report::AA.lines(doc([m("puma~aa", 1000, 1), m("iodine", 900, 1)]))
    assert_empty Arena::Report::AA.lines(doc([m("puma", 1000, 1), m("iodine", 900, 1)]))
  end

  def test_a_twin_is_never_recommended
    rows = DRIFT.each_with_index.flat_map { |d, i| [m("puma", 1000 * d, i + 1), m("puma~aa", 1300 * d, i + 1), m("iodine", 1100 * d, i + 1)] }
    api = Arena::Report::Recommend.new(doc(rows)).call.first
    assert_equal "iodine", api.pick
    refute_includes api.because, "~aa"
  end

  def test_aa_plans_the_first_config_twice
    plan = Arena::TestHelp.plan("--servers", "puma:workers=1 webrick", "--aa", machine: Arena::Machine.new(cores: 2).freeze)
    assert_equal %w[puma:workers=1,threads=5,preload=false webrick puma:workers=1,threads=5,preload=false~aa], plan.servers.map(&:label)
    assert plan.servers.last.twin?
    refute plan.servers.first.twin?
    assert_equal plan.servers.first.settings, plan.servers.last.settings
    assert_equal %w[puma:workers=1,threads=5,preload=false webrick], Arena::TestHelp.plan("--servers", "puma:workers=1 webrick",
      machine: Arena::Machine.new(cores: 2).freeze).servers.map(&:label), "no twin without --aa"
  end
end
