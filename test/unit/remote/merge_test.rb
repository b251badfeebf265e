# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/merge"

module Arena
  # Remote::Merge on values: engine documents made here from known
  # latencies (no engine started), so every figure's truth is known.
  class RemoteMergeTest < Minitest::Test
    cover "Arena::Remote::Merge*"

    FAST = Array.new(40_229) { |i| 1_000 + i % 100 }.freeze
    SLOW = Array.new(85_654) { |i| 50_000 + i % 1_000 }.freeze

    # One loader's document as the engine prints it with --histograms:
    # `good` responses passed the checks; `bad` arrived but failed them.
    def self.doc(good:, bad: [], duration: 10.0, seconds: 2, threads: 2, connections: 8, host_cpu: 40.0)
      all = good + bad
      whole = Stats::Histogram.of(all)
      goods = Stats::Histogram.of(good)
      per = all.each_slice((all.size / seconds.to_f).ceil).to_a
      {
        "schema" => "arena-load/2", "model" => "closed", "target" => "http://127.0.0.1:1/", "threads" => threads,
        "connections" => {"requested" => connections, "opened" => connections, "resent" => 0}, "duration_s" => duration,
        "requests" => {"sent" => all.size, "completed" => all.size}, "throughput_rps" => (all.size / duration).round(2),
        "bytes_received" => 10 * all.size, "status" => {"200" => good.size, "500" => bad.size},
        "errors" => {"unexpected_status" => bad.size, "total" => bad.size},
        "latency_us" => whole.latency_us, "latency_histogram" => whole.to_h, "open" => nil,
        "good" => {"completed" => good.size, "rps" => (good.size / duration).round(2), "latency_us" => goods.latency_us,
                   "latency_histogram" => goods.to_h},
        "loader_cpu_pct" => host_cpu,
        "timeline" => per.each_with_index.map do |vals, t|
          h = Stats::Histogram.of(vals)
          ngood = (good.size - per.first(t).sum(&:size)).clamp(0, vals.size)
          {"t" => t, "completed" => vals.size, "good" => ngood, "errors" => vals.size - ngood,
           "p50_us" => h.percentile(50), "p99_us" => h.percentile(99), "error_kinds" => {}, "histogram" => h.to_h}
        end
      }
    end

    # Built once when the file loads (mutant then forks per mutation).
    BIG = [doc(good: FAST), doc(good: SLOW), Stats::Histogram.of(FAST + SLOW)].freeze

    def doc(...) = self.class.doc(...)

    # The issue's two loaders: 40,229 and 85,654 requests; the first loader's
    # good responses are fast, the second's slow, so a p99 from either alone is wrong.
    def test_goodput_and_its_latency_cover_every_loader
      a, b, exact = BIG
      merged = Remote::Merge.call([a, b], hosts: %w[one two])
      assert_equal 125_883, merged.dig("requests", "completed")
      assert_equal 125_883, merged.dig("good", "completed")
      assert_in_delta 12_588.3, merged.dig("good", "rps"), 0.01
      assert_equal exact.latency_us, merged.dig("good", "latency_us")
      assert_operator merged.dig("good", "latency_us", "p99"), :>=, 50_000 # loader two's, not loader one's 1.1 ms
      m = Results::LoadFigures.from_h(merged)
      assert_equal 125_883, m.good
      assert_in_delta 12_588.3, m.good_rps, 0.01
      assert_equal 125_883, m.latency.n
    end

    def test_good_excludes_failed_checks_on_every_loader
      a = doc(good: Array.new(300, 2_000), bad: Array.new(100, 500))
      b = doc(good: Array.new(200, 3_000), bad: Array.new(50, 400))
      merged = Remote::Merge.call([a, b])
      assert_equal 650, merged.dig("requests", "completed")
      assert_equal 500, merged.dig("good", "completed")
      assert_equal 50.0, merged.dig("good", "rps")
      assert_equal 500, merged.dig("good", "latency_us", "count")
      assert_equal 2_000, merged.dig("good", "latency_us", "min") # the 400-500 us failures are not in it
      assert_equal 150, merged.dig("errors", "total")
      assert_equal({"200" => 500, "500" => 150}, merged["status"])
    end

    def test_throughput_is_over_the_longest_loader
      merged = Remote::Merge.call([doc(good: Array.new(100, 1_000), duration: 10.0), doc(good: Array.new(100, 1_000), duration: 20.0)])
      assert_equal 20.0, merged["duration_s"]
      assert_equal 10.0, merged["throughput_rps"]
      assert_equal 10.0, merged.dig("good", "rps")
      assert_equal 0.0, Remote::Merge.call([doc(good: [1_000], duration: 0.0)])["throughput_rps"]
    end

    def test_sums_threads_connections_bytes_and_describes_each_loader
      merged = Remote::Merge.call([doc(good: [1_000] * 10, threads: 2, connections: 8), doc(good: [2_000] * 30, threads: 3, connections: 4, host_cpu: 90.0)],
        hosts: %w[a b])
      assert_equal 5, merged["threads"]
      assert_equal({"requested" => 12, "opened" => 12, "resent" => 0}, merged["connections"])
      assert_equal 400, merged["bytes_received"]
      assert_equal [{"host" => "a", "connections" => 8, "completed" => 10, "errors" => 0, "throughput_rps" => 1.0, "p99_us" => 1_000, "cpu_pct" => 40.0},
        {"host" => "b", "connections" => 4, "completed" => 30, "errors" => 0, "throughput_rps" => 3.0, "p99_us" => 2_000, "cpu_pct" => 90.0}],
        merged["loaders"]
      refute merged.key?("loader_cpu_pct")
      assert_nil Remote::Merge.call([doc(good: [1])])["loaders"].first["host"]
    end

    def test_timeline_sums_each_second_and_merges_its_histograms
      a = doc(good: [1_000] * 10 + [9_000] * 10, seconds: 2)
      b = doc(good: [2_000] * 6, seconds: 3)
      t = Remote::Merge.call([a, b])["timeline"]
      assert_equal [0, 1, 2], t.map { |s| s["t"] }
      assert_equal [12, 12, 2], t.map { |s| s["completed"] }
      assert_equal [12, 12, 2], t.map { |s| s["good"] }
      assert_equal [0, 0, 0], t.map { |s| s["errors"] }
      assert_equal [1_000, 9_000, 2_000], t.map { |s| s["p50_us"] }
      assert_equal [2_000, 9_000, 2_000], t.map { |s| s["p99_us"] }
      assert_equal 12, Stats::Histogram.decode(t.first["histogram"]).total
    end

    def test_open_model_figures_are_summed
      a = doc(good: [1_000]).merge("open" => {"target_rps" => 100.0, "late" => 3, "dropped" => 1})
      b = doc(good: [1_000]).merge("open" => {"target_rps" => 50.5, "late" => 2, "dropped" => 4})
      assert_equal({"target_rps" => 150.5, "late" => 5, "dropped" => 5}, Remote::Merge.call([a, b])["open"])
      assert_nil Remote::Merge.call([doc(good: [1_000])])["open"]
    end

    # A loader whose engine wrote no good histogram: the good latency is not
    # measured (count 0), never taken from the loaders that have one.
    def test_a_loader_without_a_good_histogram_leaves_good_latency_unmeasured
      b = doc(good: [1_000] * 200)
      b["good"] = b["good"].except("latency_histogram")
      merged = Remote::Merge.call([doc(good: [5_000] * 200), b])
      assert_equal 400, merged.dig("good", "completed")
      assert_equal({"count" => 0}, merged.dig("good", "latency_us"))
      assert_nil Results::LoadFigures.from_h(merged).latency.at(:p99)
    end

    # Every figure of the merged document against its known truth: three
    # loaders of uneven duration and odd counts, so rounding and defaults show.
    def test_the_whole_document
      a = doc(good: [1_000] * 7, bad: [900] * 2, duration: 3.0).merge("target" => "http://127.0.0.1:9/x")
      b = doc(good: [2_000] * 5, duration: 3.3).except("bytes_received", "status", "errors")
      c = doc(good: [3_000] * 1, duration: 0.0).except("duration_s")
      merged = Remote::Merge.call([a, b, c], hosts: %w[h1 h2])
      exact = Stats::Histogram.of([1_000] * 7 + [900] * 2 + [2_000] * 5 + [3_000])
      assert_equal "http://127.0.0.1:9/x", merged["target"]
      assert_equal 3.3, merged["duration_s"]
      assert_equal 15, merged.dig("requests", "completed")
      assert_equal 4.55, merged["throughput_rps"], "15 / 3.3 to two places"
      assert_equal 13, merged.dig("good", "completed")
      assert_equal 3.94, merged.dig("good", "rps")
      assert_equal exact.latency_us, merged["latency_us"]
      assert_equal exact.to_h, merged["latency_histogram"]
      assert_equal Stats::Histogram.of([1_000] * 7 + [2_000] * 5 + [3_000]).latency_us, merged.dig("good", "latency_us")
      assert_equal 100, merged["bytes_received"]
      assert_equal({"200" => 8, "500" => 2}, merged["status"])
      assert_equal({"unexpected_status" => 2, "total" => 2}, merged["errors"])
      assert_equal 6, merged["threads"]
      assert_equal %w[h1 h2] + [nil], merged["loaders"].map { |l| l["host"] }
      assert_equal [9, 5, 1], merged["loaders"].map { |l| l["completed"] }
      assert_nil Remote::Merge.call([a, b.except("good")])["good"], "a loader without goodput: none merged"
      error = assert_raises(Error) { Remote::Merge.call([a, b.merge("good" => b["good"].merge("latency_histogram" => {"x" => 1}))]) }
      assert_kind_of Stats::Histogram::Invalid, error
    end

    def test_refuses_what_cannot_be_merged
      assert_equal "nothing to merge", assert_raises(Error) { Remote::Merge.call([]) }.message
      error = assert_raises(Error) { Remote::Merge.call([doc(good: [1]).except("latency_histogram")]) }
      assert_equal "loader document has no latency_histogram (engine without --histograms?)", error.message
    end

    # One request of a mix, or one stage, as the engine writes it with --histograms.
    def self.part(good_values, **fields)
      h = Stats::Histogram.of(good_values, sub_bits: 8)
      fields.merge("good" => good_values.size, "latency_us" => h.latency_us, "latency_histogram" => h.to_h)
    end

    def part(...) = self.class.part(...)

    # Loader one saw the fast request fast, loader two saw it slow: the
    # merged request's p99 is the exact merge's, and the counts add.
    def test_a_mix_s_requests_merge_by_name_exactly
      fast_a = Array.new(900) { |i| 1_000 + i % 50 }
      fast_b = Array.new(300) { |i| 20_000 + i % 500 }
      slow_a = Array.new(100, 200_000)
      slow_b = Array.new(40, 210_000)
      a = doc(good: fast_a + slow_a).merge("requests_mix" => [
        part(fast_a, "name" => "fast", "weight_share" => 0.9, "completed" => 905, "bad" => 5),
        part(slow_a, "name" => "slow", "weight_share" => 0.1, "completed" => 100, "bad" => 0)
      ])
      b = doc(good: fast_b + slow_b).merge("requests_mix" => [
        part(fast_b, "name" => "fast", "weight_share" => 0.9, "completed" => 301, "bad" => 1),
        part(slow_b, "name" => "slow", "weight_share" => 0.1, "completed" => 40, "bad" => 0)
      ])
      fast, slow = Remote::Merge.call([a, b])["requests_mix"]
      assert_equal({"name" => "fast", "weight_share" => 0.9, "completed" => 1206, "good" => 1200, "bad" => 6},
        fast.slice("name", "weight_share", "completed", "good", "bad"))
      exact = Stats::Histogram.of(fast_a + fast_b, sub_bits: 8)
      assert_equal exact.latency_us, fast["latency_us"]
      assert_operator fast.dig("latency_us", "p99"), :>=, 20_000, "loader two's slow fast requests are in the p99"
      assert_equal [140, 200_000, 210_000], [slow["good"], slow.dig("latency_us", "min"), slow.dig("latency_us", "max")]
      figures = Results::LoadFigures.from_h(Remote::Merge.call([a, b])).requests
      assert_equal [1200, 140], figures.map(&:good)
      assert_equal exact.percentile(50), figures.first.latency.p50
      # A loader without the mix (or with other requests): no per-request figures rather than one loader's.
      assert_nil Remote::Merge.call([a, doc(good: fast_b)])["requests_mix"]
      assert_nil Remote::Merge.call([a, b.merge("requests_mix" => b["requests_mix"].reverse)])["requests_mix"]
    end

    # Each loader ran half of every stage's rate: rates, asked and counts
    # add; each stage's latency is the exact merge of its loaders'.
    def test_a_profile_s_stages_merge_in_order_exactly
      stage = lambda do |values, from, to, start, seconds, sent, dropped|
        part(values, "from_rps" => from, "to_rps" => to, "start_s" => start, "duration_s" => seconds, "asked" => (from + to) / 2.0 * seconds,
          "sent" => sent, "completed" => values.size, "errors" => sent - values.size, "dropped" => dropped)
      end
      hold_a = Array.new(200, 1_500)
      hold_b = Array.new(198, 1_700)
      spike_a = Array.new(400) { |i| 3_000 + i * 100 }
      spike_b = Array.new(350) { |i| 2_000 + i * 50 }
      a = doc(good: hold_a + spike_a).merge("stages" => [stage.call(hold_a, 0, 100, 0, 2, 200, 0), stage.call(spike_a, 500, 500, 2, 1, 420, 80)])
      b = doc(good: hold_b + spike_b).merge("stages" => [stage.call(hold_b, 0, 100, 0, 2, 199, 1), stage.call(spike_b, 500, 500, 2, 1, 400, 100)])
      ramp, spike = Remote::Merge.call([a, b])["stages"]
      assert_equal({"from_rps" => 0.0, "to_rps" => 200.0, "start_s" => 0, "duration_s" => 2, "asked" => 200.0, "sent" => 399,
                    "completed" => 398, "good" => 398, "errors" => 1, "dropped" => 1}, ramp.except("latency_us", "latency_histogram"))
      assert_equal [1000.0, 1000.0, 1000.0, 820, 750, 70, 180], spike.values_at("from_rps", "to_rps", "asked", "sent", "good", "errors", "dropped")
      assert_equal Stats::Histogram.of(spike_a + spike_b, sub_bits: 8).latency_us, spike["latency_us"]
      figures = Results::LoadFigures.from_h(Remote::Merge.call([a, b])).stages
      assert_equal [199.5, 820.0], figures.map(&:sent_rps)
      assert_nil Remote::Merge.call([a, b.merge("stages" => b["stages"].first(1))])["stages"], "different profiles do not merge"
    end

    # Each second's percentiles from the merged histogram of that second
    # (values 1% apart, so p49/p50/p51 and p98/p99/p100 differ), its errors
    # by kind summed; a second without histograms has no percentiles (0), a
    # loader without "good" per second leaves good out, one without a
    # timeline adds nothing.
    def test_each_second_of_the_timeline_exactly
      hist = Stats::Histogram
      first = Array.new(60) { |i| 10_000 + 200 * i }
      second = Array.new(40) { |i| 30_000 + 300 * i }
      a = {"t" => 0, "completed" => 60, "good" => 59, "errors" => 1, "error_kinds" => {"timeout" => 1}, "histogram" => hist.of(first).to_h}
      b = {"t" => 0, "completed" => 40, "good" => 40, "errors" => "2", "error_kinds" => {"timeout" => 1, "read" => 1}, "histogram" => hist.of(second).to_h}
      bare = {"t" => 1, "completed" => 5, "errors" => 0}
      t = Remote::Merge.call([doc(good: [1]).merge("timeline" => [a, bare]), doc(good: [1]).merge("timeline" => [b]), doc(good: [1]).except("timeline")])["timeline"]
      both = hist.of(first + second)
      assert_equal [both.percentile(50), both.percentile(99)], t[0].values_at("p50_us", "p99_us")
      refute_equal both.percentile(49), both.percentile(50)
      refute_equal both.percentile(51), both.percentile(50)
      refute_equal both.percentile(98), both.percentile(99)
      refute_equal both.percentile(100), both.percentile(99)
      assert_equal [100, 99, 3, {"timeout" => 2, "read" => 1}], t[0].values_at("completed", "good", "errors", "error_kinds")
      assert_equal 100, hist.decode(t[0]["histogram"]).total
      assert_equal({"t" => 1, "completed" => 5, "errors" => 0, "p50_us" => 0, "p99_us" => 0, "error_kinds" => {}}, t[1],
        "no histogram, no percentiles; no good per second from a loader: good left out")
    end

    # A loader's document with what an older or foreign engine leaves out or
    # writes as strings: counted as 0 or skipped, never a crash or a nil sum.
    def test_a_sparse_document_beside_a_full_one
      hist = Stats::Histogram
      sparse = {"latency_histogram" => hist.of([5_000]).to_h, "requests" => {"sent" => 7}, "threads" => "3",
                "errors" => {"note" => "x", "timeout" => 1}, "open" => {"target_rps" => 100.126, "late" => nil, "dropped" => "2"},
                "good" => {"completed" => "7"}}
      full = doc(good: [1_000] * 3, duration: 2.0).merge("open" => {"target_rps" => 50.0, "late" => 4, "dropped" => 1},
        "errors" => {"note" => "y", "timeout" => 2, "total" => 2})
      m = Remote::Merge.call([full, sparse])
      assert_equal [3, 10, 5, 2.0, 1.5], [m["requests"]["completed"], m["requests"]["sent"], m["threads"], m["duration_s"], m["throughput_rps"]]
      assert_equal({"target_rps" => 150.13, "late" => 4, "dropped" => 3}, m["open"])
      assert_equal "y", m["errors"]["note"], "a figure that is not a number is not summed"
      assert_equal 3, m["errors"]["timeout"]
      assert_equal({"completed" => 10, "rps" => 5.0, "latency_us" => {"count" => 0}}, m["good"], "a loader without a good histogram: good latency unmeasured")
      assert_equal "http://127.0.0.1:1/", m["target"]
      assert_equal [{"completed" => 3}, {}], m["loaders"].map { |l| l.slice("completed") }
      zero = Remote::Merge.call([sparse])
      assert_equal [0.0, 0.0], [zero["throughput_rps"], zero["good"]["rps"]], "no duration: no rate"
      assert_nil Remote::Merge.call([sparse.except("open")])["open"]
      assert_nil Remote::Merge.call([full, sparse.except("good")])["good"]
    end

    # A request or stage one loader wrote without its histogram: latency
    # unmeasured (count 0), never the other loader's alone; with both, the
    # merged histogram is written beside the figures.
    def test_a_part_without_its_histogram_leaves_latency_unmeasured
      values_a = Array.new(50) { |i| 1_000 + 10 * i }
      values_b = Array.new(30) { |i| 5_000 + 10 * i }
      a = doc(good: values_a).merge("requests_mix" => [part(values_a, "name" => "x", "weight_share" => 1.0, "completed" => 50, "bad" => 0)],
        "stages" => [part(values_a, "from_rps" => 1, "to_rps" => 1, "start_s" => 0, "duration_s" => 1, "sent" => 50)])
      b = doc(good: values_b).merge("requests_mix" => [part(values_b, "name" => "x", "weight_share" => 1.0, "completed" => 30, "bad" => 0).except("latency_histogram")],
        "stages" => [part(values_b, "from_rps" => 1, "to_rps" => 1, "start_s" => 0, "duration_s" => 1, "sent" => 30).except("latency_histogram")])
      merged = Remote::Merge.call([a, b])
      [merged["requests_mix"].first, merged["stages"].first].each do |entry|
        assert_equal({"count" => 0}, entry["latency_us"])
        refute entry.key?("latency_histogram")
      end
      assert_equal 80, merged["requests_mix"].first["good"]
      both = Remote::Merge.call([a, a])
      exact = Stats::Histogram.of(values_a + values_a, sub_bits: 8)
      assert_equal [exact.latency_us, exact.to_h], both["requests_mix"].first.values_at("latency_us", "latency_histogram")
      assert_equal exact.to_h, both["stages"].first["latency_histogram"]
    end

    # Sections summed key by key: a figure that is not a number on either
    # side keeps the first loader's; a section no loader wrote is empty.
    def test_sections_sum_numbers_only
      a = doc(good: [1_000]).merge("errors" => {"timeout" => 1, "note" => "x", "total" => 1}, "status" => {"200" => 1})
      b = doc(good: [1_000]).merge("errors" => {"timeout" => "2", "note" => 3, "total" => 2}).except("status")
      m = Remote::Merge.call([a, b])
      assert_equal({"timeout" => 1, "note" => "x", "total" => 3}, m["errors"])
      assert_equal({"200" => 1}, m["status"])
      assert_equal({}, Remote::Merge.call([a.except("connections"), b.except("connections")])["connections"])
      assert_equal "http://127.0.0.1:1/", m["target"]
    end

    # A second in two loaders' timelines where one wrote no goodput: good
    # left out; counts a loader wrote as strings, or not at all, add as numbers.
    def test_a_second_goodput_needs_every_loader
      t = Remote::Merge.call([doc(good: [1]).merge("timeline" => [{"t" => 0, "completed" => "40", "good" => "39"}]),
        doc(good: [1]).merge("timeline" => [{"t" => 0, "completed" => 5, "errors" => 1}]), doc(good: [1]).merge("timeline" => [{"t" => 0}])])["timeline"]
      assert_equal({"t" => 0, "completed" => 45, "errors" => 1, "p50_us" => 0, "p99_us" => 0, "error_kinds" => {}}, t[0])
      good = Remote::Merge.call([doc(good: [1]).merge("timeline" => [{"t" => 0, "good" => "39"}]), doc(good: [1]).merge("timeline" => [{"t" => 0, "good" => 2}])])["timeline"]
      assert_equal 41, good[0]["good"]
    end

    # A loader's goodput that is not a section, or has no count: none merged, or 0.
    def test_odd_goodput_sections
      a = doc(good: [1_000])
      assert_nil Remote::Merge.call([a, a.merge("good" => 5)])["good"]
      assert_equal 1, Remote::Merge.call([a, a.merge("good" => a["good"].except("completed"))])["good"]["completed"]
    end
  end
end
