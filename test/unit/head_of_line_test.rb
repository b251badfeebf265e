# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# head-of-line's pure parts: its arrival rate and which config protects fast requests best.
class HeadOfLineUnitTest < Minitest::Test
  Rule = Arena::Scenarios::HeadOfLineRule
  HoL = Arena::Scenarios::HeadOfLine

  def entry(server, *tail_x) = Rule::Entry.new(server: server, fast: tail_x.map { |x| {"tail_x" => x} }).freeze

  def test_the_config_whose_worst_fast_request_grew_least_protects_best
    verdict = Rule.best([entry("unicorn", 8.2), entry("puma", 1.0, 1.4), entry("falcon", 1.2)])
    assert_equal "falcon protects fast requests best", verdict.word
    assert_equal "their p90 beside the slow request was x1.2 their median alone, against x1.4 on puma (falcon x1.2, puma x1.4, unicorn x8.2)", verdict.reason
  end

  def test_without_two_configs_with_a_p99_it_cannot_judge
    refute Rule.best([entry("puma", 1.0)]).judged?
    refute Rule.best([entry("puma", 1.0), entry("unicorn", nil)]).judged?
    assert Rule.best([entry("puma", 1.0), entry("unicorn", 2.0)]).judged?
  end

  def test_the_rate_keeps_one_slow_request_in_flight
    assert_equal 50.0, HoL.rate(10, 0.2)
    assert_equal 100.0, HoL.rate(10, 0.1)
    assert_equal 1.0, HoL.rate(90, 100)
  end

  def test_a_fast_point_has_ratios_only_where_both_percentiles_are_supported
    few = Arena::Results::Latency.new(n: 50, p50: 1000, p99: 5000).freeze
    many = Arena::Results::Latency.new(n: 500, p50: 2000, p99: 40_000).freeze
    point = HoL.point("server", few, many)
    assert_equal 2.0, point["p50_x"]
    assert_nil point["p99_x"], "50 responses support no p99"
    assert_equal 8.0, HoL.point("server", Arena::Results::Latency.new(n: 100, p50: 1000, p99: 5000).freeze, many)["p99_x"]
  end
end
