# frozen_string_literal: true

require "test_helper"
require "arena"

# Figures and words as a person reads them, for every folder (the report's
# tables, the verdicts' reasons, tune's lines).
class SupportFormatTest < Minitest::Test
  cover "Arena::Support::Format*"

  F = Arena::Support::Format

  def test_figures_in_their_units
    assert_equal ["12,346", "150", "99.5", "0.25", "0.0"], [12_345.6, 150.2, 99.5, 0.25, 0].map { |v| F.rps(v) }
    assert_equal ["-", "850us", "3.1ms", "1.25s"], [nil, 850, 3100, 1_250_000].map { |us| F.duration_us(us) }
    assert_equal ["-", "41.0 MiB", "1.50 GiB"], [0, 41 * 1024, 1536 * 1024].map { |kb| F.memory_kb(kb) }
    assert_equal ["?", "2.5%", "12%"], [nil, 2.54, 12.4].map { |v| F.pct(v) }
    assert_equal ["0", "<0.01%", "1.25%"], [0, 0.004, 1.25].map { |v| F.error_pct(v) }
    assert_equal ["", "a", "a and b", "a, b and c"], [[], %w[a], %w[a b], %w[a b c]].map { |w| F.and_list(w) }
  end

  # A comparison's or a gate's figure, by its metric's name.
  def test_each_metric
    assert_equal ["1,235", "1,235", "48.8 MiB", "2.00 GiB", "5", "0.12%", "1.5ms", "-", "-"],
      [F.metric("good_rps", 1234.5), F.metric("rps", 1234.5), F.metric("pss", 50_000), F.metric("rss", 2 * 1024 * 1024),
        F.metric("errors", 4.6), F.metric("error_pct", 0.123), F.metric("p99", 1500), F.metric("p99", nil), F.metric("good_rps", nil)]
  end

  def test_a_configs_settings_as_words
    assert_equal "workers=2 threads=4", F.pairs({"workers" => 2, "threads" => 4})
    assert_equal "", F.pairs({})
    assert_equal "workers=2", F.settings({"workers" => 2})
    assert_equal ["its defaults", "its defaults"], [{}, nil].map { |s| F.settings(s) }
  end
end
