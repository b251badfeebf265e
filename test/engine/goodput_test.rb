# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # Four behaviours every verdict reads, each asserted so that breaking it in
  # the engine fails here: goodput with a body check, goodput summed over
  # threads, requests the open model could not send recorded in its latency,
  # and good.rps computed from good responses alone.
  class EngineGoodputTest < EngineCase
    include TestServers

    # KeepAlive answers "hello arena": a body check it passes counts every
    # response good; one it fails counts none, each a body_mismatch.
    def test_goodput_with_a_body_check
      KeepAlive.open do |server|
        pass = run_ok(server.target, "-c", 2, "-n", 200, "--expect-body", "arena", deadline: 8)
        assert_equal 200, pass.json.dig("good", "completed"), pass.describe
        miss = run_ok(server.target, "-c", 2, "-n", 200, "--expect-body", "nowhere", deadline: 8)
        assert_equal 200, miss.completed, miss.describe
        assert_equal 0, miss.json.dig("good", "completed"), miss.describe
        assert_equal 200, miss.errors["body_mismatch"], miss.describe
        assert_equal 0, miss.json.dig("good", "latency_us", "count")
      end
    end

    # Four threads share 800 requests: goodput is their sum, not one thread's.
    def test_goodput_is_summed_across_threads
      KeepAlive.open do |server|
        run = run_ok(server.target, "-t", 4, "-c", 8, "-n", 800, deadline: 8)
        assert_equal 4, run.json["threads"]
        assert_equal 800, run.completed, run.describe
        assert_equal 800, run.json.dig("good", "completed"), run.describe
        assert_equal 800, run.json.dig("good", "latency_us", "count"), run.describe
        assert_equal 800, run.json["timeline"].sum { |s| s["good"] }, run.describe
      end
    end

    # A server that never answers, one connection, 100 requests a second for
    # a second: almost every scheduled request never goes out. Each is
    # recorded in the latency with the time from its intended start to the
    # end of the run, so the percentiles show the stall instead of nothing.
    def test_dropped_requests_are_recorded_in_open_model_latency
      Stall.open do |server|
        run = run_engine(server.target, "-R", 100, "-c", 1, "-d", 1, "-w", 0, "--timeout", 5, deadline: 10)
        doc = run.json
        dropped = doc.dig("open", "dropped")
        assert_operator dropped, :>=, 90, run.describe
        assert_equal 0, run.completed, run.describe
        assert_operator run.latency["count"], :>=, dropped, run.describe
        # Requests due evenly over the second: the median waited about half of it.
        assert_includes 300_000..700_000, run.latency["p50"], run.describe
      end
    end

    # Half the requests answer 503: good.rps is the good half's rate, not
    # the throughput of everything that came back.
    def test_good_rps_counts_good_responses_only
      KeepAlive.open do |server|
        Dir.mktmpdir("arena-engine") do |dir|
          File.write(path = File.join(dir, "mix"), "1 GET /ok 200\n1 GET /status/503 200\n")
          run = run_ok(server.target, "-c", 2, "-d", 1, "--mix", path, deadline: 8)
          doc = run.json
          good = doc.dig("good", "completed")
          assert_in_delta good / doc["duration_s"], doc.dig("good", "rps"), 0.01 * doc.dig("good", "rps") + 0.01
          assert_in_delta doc["throughput_rps"] / 2, doc.dig("good", "rps"), 0.15 * doc["throughput_rps"], run.describe
          assert_operator doc.dig("good", "rps"), :<, 0.8 * doc["throughput_rps"], run.describe
        end
      end
    end
  end
end
