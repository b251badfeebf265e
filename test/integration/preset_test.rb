# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

# One preset end to end through the real executable, at a tiny scale: ab-2015
# at 0.1 is 10 requests per level on four server configs.
class PresetTest < Arena::ArenaCase
  def test_ab_2015_at_a_tiny_scale
    # The scale is checked by what ran (10 requests a level, below), not by
    # the wall time: 28-31 s here beside another test file.
    outcome = arena("run", "--preset", "ab-2015", "--scale", "0.1", timeout: 60)
    assert outcome.status.success?, outcome.describe
    doc = outcome.results
    assert_equal({"name" => "ab-2015", "scale" => 0.1}, doc.dig("plan", "preset").slice("name", "scale"))
    assert_equal 4, doc["servers"].count { |s| s["status"] == "ok" }
    measurements = outcome.measurements.select { |m| m["scenario"] == "count" }
    assert_equal 4 * 2 * 3, measurements.size, "4 servers x 2 workloads x 3 concurrencies"
    measurements.each do |m|
      assert_equal 10, m.dig("extra", "ab", "complete_requests"), m["server"]
      assert_equal 0, m.dig("extra", "ab", "failed_requests"), m["server"]
      assert_includes m["engine_argv"], "-n"
    end
    assert_equal %w[c=10\ close c=25\ close c=50\ close], measurements.map { |m| m["variant"] }.uniq
    assert_match(/preset ab-2015 at scale 0.1/, outcome.stderr)
    assert_match(/ab figures \(ms\)/, outcome.stdout)
  end

  def test_unknown_preset_lists_the_known_ones
    outcome = arena("run", "--preset", "nope")
    assert_equal 2, outcome.status.exitstatus
    assert_match(/unknown preset "nope" \(known: .*ab-2015/, outcome.stderr)
  end
end
