# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

# head-of-line on the built-in app, judged by what a slot forces rather than
# by which server's ratio comes out ahead (beside another file in the lane,
# Puma's tail read x28 and Unicorn's x21 once: a race, not the physics). At
# 10% /sleep?ms=100 the rate keeps one slow request in flight on average, so
# Unicorn's two workers are both on slow requests about a quarter of the
# time, and a fast request that arrives then waits for the first to end
# (half a slow request or more in a quarter of those cases): at least one
# fast request in a hundred waits 50 ms. Puma's ten threads go on, so most
# of its fast requests wait for no slow one. A busy machine only adds to
# Unicorn's waits, and would have to add 50 ms to Puma's median.
class HeadOfLineTest < Arena::ArenaCase
  SERVERS = "puma unicorn"
  HALF_A_SLOW_US = 50_000

  def test_unicorns_fast_requests_wait_behind_a_slow_one_and_pumas_go_on
    out = arena("run", "--servers", SERVERS, "--scenario", "head-of-line", "--workload", "server",
      "--slow-request", "/sleep?ms=100", "-d", "1.5", "-w", "0.3", "--rounds", "1", timeout: 300)
    assert out.status.success?, out.describe
    summaries = out.measurements.select { |m| m["scenario"] == "head-of-line" && m["kind"] == "summary" }
    fast = summaries.to_h { |m| [m["server"][/\A\w+/], m["extra"]["fast"].first] }
    assert_equal %w[puma unicorn], fast.keys.sort, out.describe
    fast.each_value do |f|
      assert_operator f["alone_n"], :>=, 100, f.inspect
      assert_operator f["beside_n"], :>=, 100, f.inspect
    end
    # One slow request in flight on average: the rate is 1 / (10% x the slow
    # request's unloaded time), at most 100 req/s since a 100 ms sleep takes
    # 100 ms or more (84.7 once beside the lane and a busy neighbour: the
    # sleep read 118 ms, which lowers the rate but not the physics).
    summaries.each do |m|
      x = m["extra"]
      assert_operator x["rate"], :<=, 100, x.inspect
      assert_in_delta 1, x["rate"] * 0.1 * x["slow_unloaded_us"] / 1e6, 0.01, "one slow request in flight on average: #{x}"
    end
    assert_empty physics(fast), fast.inspect
    # The verdict's lines, whichever config they name: one round ranks the
    # two by their ratios, which a busy machine moves.
    assert_match(/^server  head-of-line  (puma|unicorn)\S* best: fast p90 x[\d.]+ beside slow ones \((puma|unicorn)\S* x[\d.]+\)$/, out.stdout)
    assert_match(/head-of-line server: (puma|unicorn)\S* protects fast requests best: their p90 beside the slow request was x[\d.]+ their median alone, against x[\d.]+ on (puma|unicorn)/,
      out.report_md)
  end

  private

  # What a slot forces, each broken rule a line: Unicorn's p99 beside the slow
  # requests is a wait behind one; Puma's median is not.
  def physics(fast)
    unicorn, puma = fast.values_at("unicorn", "puma")
    [("unicorn: no fast request in a hundred waited half a slow one (p99 #{unicorn["beside_p99_us"]} us)" if unicorn["beside_p99_us"] < HALF_A_SLOW_US),
      ("puma: half its fast requests waited half a slow one (p50 #{puma["beside_p50_us"]} us)" if puma["beside_p50_us"] >= HALF_A_SLOW_US)].compact
  end
end
