# frozen_string_literal: true

require_relative "../../test_helper"
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

  def m_in(variant, server, rps, round) = m(server, rps, round).merge("variant" => variant)

  # A twin pairs with its original in its own workload, scenario and variant,
  # not the first row of the same server.
  def test_a_twin_pairs_with_its_own_variant
    rows = DRIFT.each_with_index.flat_map do |d, i|
      [m_in("close", "puma", 500 * d, i + 1), m_in("keep-alive", "puma", 1000 * d, i + 1), m_in("keep-alive", "puma~aa", 1000 * d * (1 + 0.004 * (-1)**i), i + 1)]
    end
    pairs = Arena::Report::AA.pairs(Arena::Report::Rows.from(doc(rows)))
    assert_equal 1, pairs.size
    pair = pairs.first
    assert pair.frozen?
    assert_equal [["puma", "keep-alive"], ["puma~aa", "keep-alive"]], [[pair.original.server, pair.original.variant], [pair.twin.server, pair.twin.variant]]
    assert_match(/\AA\/A: puma server steady keep-alive and its twin read alike \(equivalent within ±3%: puma~aa is -0\.0% against puma \(95% interval -0\.5% to \+0\.5%/, pair.line)
  end

  # A twin that missed a round (its run failed) pairs on the rounds both
  # have, each side by its own rounds.
  def test_a_twin_that_missed_a_round_pairs_on_the_rounds_both_have
    rows = DRIFT.each_with_index.flat_map do |d, i|
      [m("puma", 1000 * d, i + 1), *((i == 2) ? [] : [m("puma~aa", 1000 * d * (1 + 0.004 * (-1)**i), i + 1)])]
    end
    pair = Arena::Report::AA.pairs(Arena::Report::Rows.from(doc(rows))).first
    assert_match(/paired t on log ratios, 5 rounds/, pair.difference.reason)
    assert_equal 5, pair.difference.n
  end

  # Different means significant and beyond the band: a real but tiny
  # difference (inside ±3%) and a noisy pair (not distinguishable) read alike,
  # the latter without the "not distinguishable here" lead-in.
  def test_only_a_difference_beyond_the_band_is_a_warning
    tiny = DRIFT.each_with_index.flat_map { |d, i| [m("puma", 1000 * d, i + 1), m("puma~aa", 1010 * d * (1 + 0.001 * (-1)**i), i + 1)] }
    pair = Arena::Report::AA.pairs(Arena::Report::Rows.from(doc(tiny))).first
    assert pair.difference.significant?, pair.difference.reason
    refute pair.different?
    assert_match(/\AA\/A: puma server steady keep-alive and its twin read alike \(equivalent within ±3%: puma~aa is \+1\.0%/, pair.line)
    noise = [1.0, 1.3, 0.8, 1.2, 0.75, 1.1]
    noisy = DRIFT.each_with_index.flat_map { |d, i| [m("puma", 1000 * d, i + 1), m("puma~aa", 1000 * d * noise[i], i + 1)] }
    pair = Arena::Report::AA.pairs(Arena::Report::Rows.from(doc(noisy))).first
    refute pair.difference.significant?, pair.difference.reason
    refute pair.difference.equivalent?, pair.difference.reason
    refute pair.different?
    assert_match(/\AA\/A: puma server steady keep-alive and its twin read alike \(puma~aa is \+\d+\.\d% against puma \(95% interval /, pair.line)
  end

  # Agoo, first in the default list, is the noisiest config: --aa names another.
  def test_aa_names_the_config_it_runs_twice
    cores = Arena::Plan::Machine.new(cores: 2).freeze
    plan = Arena::TestHelp.plan("--servers", "puma:workers=1 webrick", "--aa", "webrick", machine: cores)
    assert_equal %w[puma:workers=1,threads=5,preload=false webrick webrick~aa], plan.servers.map(&:label)
    label = "puma:workers=1,threads=5,preload=false"
    assert_equal "#{label}~aa", Arena::TestHelp.plan("--servers", "puma:workers=1 puma:workers=2", "--aa", label, machine: cores).servers.last.label
    error = assert_raises(Arena::UsageError) { Arena::TestHelp.plan("--servers", "puma:workers=1 puma:workers=2", "--aa", "puma", machine: cores) }
    assert_match(/\A--aa puma: more than one of this run's servers \(puma:workers=1,.*\); name one by its label\z/, error.message)
    error = assert_raises(Arena::UsageError) { Arena::TestHelp.plan("--servers", "puma", "--aa", "unicorn", machine: cores) }
    assert_match(/\A--aa unicorn: none of this run's servers/, error.message)
  end

  def test_aa_plans_the_first_config_twice
    plan = Arena::TestHelp.plan("--servers", "puma:workers=1 webrick", "--aa", machine: Arena::Plan::Machine.new(cores: 2).freeze)
    assert_equal %w[puma:workers=1,threads=5,preload=false webrick puma:workers=1,threads=5,preload=false~aa], plan.servers.map(&:label)
    assert plan.servers.last.twin?
    refute plan.servers.first.twin?
    assert_equal plan.servers.first.settings, plan.servers.last.settings
    assert_equal %w[puma:workers=1,threads=5,preload=false webrick], Arena::TestHelp.plan("--servers", "puma:workers=1 webrick",
      machine: Arena::Plan::Machine.new(cores: 2).freeze).servers.map(&:label), "no twin without --aa"
  end
end
