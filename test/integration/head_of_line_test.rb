# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

# head-of-line on the built-in app: Puma's threads go on serving fast
# requests while one sleeps; a Unicorn worker busy with the slow request
# serves nothing else, so its fast requests' p99 grows with the slow one.
class HeadOfLineTest < Arena::ArenaCase
  def test_puma_threads_protect_fast_requests_better_than_unicorn_processes
    out = arena("run", "--servers", "puma unicorn", "--scenario", "head-of-line", "--workload", "server",
      "--slow-request", "/sleep?ms=100", "-d", "1.5", "-w", "0.3", "--rounds", "1", timeout: 300)
    assert out.status.success?, out.describe
    summaries = out.measurements.select { |m| m["scenario"] == "head-of-line" && m["kind"] == "summary" }
    fast = summaries.to_h { |m| [m["server"][/\A\w+/], m["extra"]["fast"].first] }
    assert_equal %w[puma unicorn], fast.keys.sort, out.describe
    fast.each_value do |f|
      assert_operator f["alone_n"], :>=, 100, f.inspect
      assert_operator f["beside_n"], :>=, 100, f.inspect
    end
    summaries.each { |m| assert_in_delta 100, m["extra"]["rate"], 10, "one 100 ms request in flight on average at 10%" }
    # Both Unicorn workers on slow requests about a quarter of the time: its
    # fast requests' p90 is a wait behind a 100 ms one (what is left of it:
    # 29.6 ms once at load 10, so the floor is 20 ms, ten times the fast
    # requests' median alone); Puma's 10 threads go on.
    assert_operator fast["unicorn"]["beside_p90_us"], :>=, 20_000, "a fast request waited behind a 100 ms one: #{fast["unicorn"]}"
    assert_operator fast["unicorn"]["tail_x"], :>, 2 * fast["puma"]["tail_x"], fast.inspect
    assert_match(/^server  head-of-line  puma\S* best: fast p90 x[\d.]+ beside slow ones \(unicorn\S* x[\d.]+\)$/, out.stdout)
    assert_match(/head-of-line server: puma\S* protects fast requests best: their p90 beside the slow request was x[\d.]+ their median alone, against x[\d.]+ on unicorn/,
      out.report_md)
  end
end
