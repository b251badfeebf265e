# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # -n, -r, -d, -w, -t and the document's arithmetic.
  class EngineBoundsTest < EngineCase
    include TestServers

    def test_total_requests_is_exact
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 4, "-n", 100, deadline: 6)
        assert_equal [100, 100], [run.sent, run.completed], run.describe
        assert_equal 100, server.total_requests
        assert_no_errors(run)
      end
    end

    def test_total_requests_is_exact_with_pipelining
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 3, "-p", 4, "-n", 101, deadline: 6)
        assert_equal [101, 101], [run.sent, run.completed], run.describe
        assert_equal 101, server.total_requests
        assert_no_errors(run)
      end
    end

    def test_repetitions_per_connection
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 4, "-r", 5, deadline: 6)
        assert_equal [20, 20], [run.sent, run.completed], run.describe
        assert_equal 20, server.total_requests
        assert_equal 4, run.json.dig("connections", "requested"), run.describe
      end
    end

    def test_repetitions_with_pipelining_and_without_keep_alive
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 2, "-r", 3, "-p", 4, deadline: 6)
        assert_equal [6, 6], [run.sent, run.completed], run.describe
        run = run_ok(server.target, "-c", 3, "-r", 4, "--no-keep-alive", deadline: 6)
        assert_equal [12, 12], [run.sent, run.completed], run.describe
        assert_equal 6 + 12, server.total_requests
      end
    end

    def test_duration_timeline_and_latency_order
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 4, "-t", 2, "-d", 2, deadline: 6)
        doc = run.json
        assert_no_errors(run)
        assert_equal "closed", doc["model"]
        assert_equal 2, doc["threads"], run.describe
        assert_in_delta 2.0, doc["duration_s"], 0.3, run.describe
        assert_operator run.completed, :>, 200, run.describe
        assert_in_delta run.completed / doc["duration_s"], doc["throughput_rps"], doc["throughput_rps"] * 0.05
        assert_includes 2..3, doc["timeline"].size, run.describe
        assert_equal run.completed, doc["timeline"].sum { |second| second["completed"] }, run.describe
        doc["timeline"].each do |second|
          %w[t completed errors p50_us p99_us].each { |key| assert second.key?(key), "timeline entry lacks #{key}" }
        end
        assert_latency_order(run.latency)
      end
    end

    def test_warm_up_is_not_counted
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 2, "-w", 0.5, "-d", 1, deadline: 6)
        assert_in_delta 1.0, run.json["duration_s"], 0.3, run.describe
        assert_operator server.total_requests, :>, run.completed, "warm-up requests were counted:\n#{run.describe}"
      end
    end

    def test_threads_pinned_to_cpus
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 4, "-t", 2, "--cpus", "0,1", "-n", 200, deadline: 6)
        assert_equal 200, run.completed, run.describe
        assert_equal 2, run.json["threads"]
      end
    end

    private

    def assert_latency_order(latency)
      keys = %w[min p50 p75 p90 p99 p999 p9999]
      keys.each_cons(2) do |low, high|
        assert_operator latency[low], :<=, latency[high], "#{low} > #{high}: #{latency}"
      end
      # A percentile may be reported as its bucket's upper bound (3 digits).
      assert_operator latency["p9999"], :<=, latency["max"] * 1.002 + 1, latency.to_s
      assert_operator latency["min"], :<=, latency["mean"], latency.to_s
      assert_operator latency["mean"], :<=, latency["max"], latency.to_s
      # The spread is real and bounded: above 0 when the values differ, and
      # no more than half the range (Popoviciu, with the n-1 correction).
      n = latency["count"]
      if latency["max"] > latency["min"]
        assert_operator latency["stdev"], :>, 0, latency.to_s
        assert_operator latency["stdev"], :<=, (latency["max"] - latency["min"]) / 2.0 * Math.sqrt(n / (n - 1.0)) + 0.1, latency.to_s
      else
        assert_equal 0, latency["stdev"], latency.to_s
      end
    end
  end
end
