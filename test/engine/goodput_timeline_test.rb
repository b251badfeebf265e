# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # Goodput (responses that passed the checks, with their own latency) and the
  # timeline at a chosen interval (schema arena-load/2).
  class EngineGoodputTimelineTest < EngineCase
    include TestServers

    def test_goodput_counts_only_responses_that_passed
      KeepAlive.open do |server|
        mix = "1 GET /ok 200\n1 GET /status/503 200\n"
        Dir.mktmpdir("arena-engine") do |dir|
          path = File.join(dir, "mix")
          File.write(path, mix)
          run = run_ok(server.target, "-c", 2, "-n", 400, "--mix", path, deadline: 8)
          doc = run.json
          assert_equal "arena-load/2", doc["schema"]
          bad = run.errors["unexpected_status"]
          assert_equal server.counts["GET /status/503"], bad, run.describe
          assert_equal run.completed - bad, doc.dig("good", "completed"), run.describe
          # duration_s is printed to the microsecond: on a run of a few ms that
          # rounding alone moves the rate by more than 1 req/s (23,623 req/s
          # read 1.4 apart), while one response more or less moves it by 1/duration.
          rounding = doc.dig("good", "rps") * 0.5e-6 / doc["duration_s"] + 0.01
          assert_in_delta doc.dig("good", "completed") / doc["duration_s"], doc.dig("good", "rps"), rounding
          good_latency = doc.dig("good", "latency_us")
          assert_equal doc.dig("good", "completed"), good_latency["count"]
          %w[min mean stdev max p50 p75 p90 p99 p999 p9999].each { |key| assert_kind_of Numeric, good_latency[key], key }
          assert_equal doc.dig("good", "completed"), doc["timeline"].sum { |entry| entry["good"] }
        end
      end
    end

    def test_no_good_response_gives_zero_goodput
      KeepAlive.open do |server|
        run = run_ok(server.target("/status/503"), "-c", 2, "-n", 30, deadline: 6)
        assert_equal 0, run.json.dig("good", "completed"), run.describe
        assert_equal 0, run.json.dig("good", "latency_us", "count")
        assert_operator run.latency["p50"], :>, 0
      end
    end

    def test_timeline_at_100_ms
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 2, "-d", 1, "--timeline-ms", 100, deadline: 6)
        doc = run.json
        assert_equal 100, doc["timeline_ms"]
        timeline = doc["timeline"]
        assert_equal 10, timeline.size, run.describe
        assert_equal (0..9).map { |i| i * 100 }, timeline.map { |entry| entry["start_ms"] }
        assert_equal (0..9).map { |i| i / 10.0 }, timeline.map { |entry| entry["t"] }
        assert_equal run.completed, timeline.sum { |entry| entry["completed"] }
        assert(timeline.all? { |entry| entry["completed"] > 0 && entry["p50_us"] > 0 }, run.describe)
      end
    end

    def test_default_timeline_is_per_second
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 2, "-d", 1.5, deadline: 6)
        assert_equal 1000, run.json["timeline_ms"]
        assert_equal [0, 1000], run.json["timeline"].map { |entry| entry["start_ms"] }
      end
    end

    # --histograms keeps each entry's buckets after the interval's shared
    # histogram is dropped: the kept one holds exactly that entry's responses.
    def test_timeline_histograms_survive_the_bounded_timeline
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 2, "-t", 2, "-d", 1, "--timeline-ms", 250, "--histograms", deadline: 6)
        timeline = run.json["timeline"]
        assert_equal 4, timeline.size, run.describe[0, 800]
        timeline.each do |entry|
          assert_equal entry["completed"], entry.dig("histogram", "count"), entry.to_s[0, 300]
        end
      end
    end

    def test_bad_timeline_interval
      KeepAlive.open do |server|
        %w[0 -5 abc 1.5].each do |value|
          assert_one_line_error(run_engine(server.target, "-n", 1, "--timeline-ms", value, deadline: 3), 2)
        end
      end
    end
  end
end
