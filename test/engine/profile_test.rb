# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # --profile: open-model stages in order, each reported on its own.
  class EngineProfileTest < EngineCase
    include TestServers

    def test_each_stage_sends_its_asked_requests_in_order
      KeepAlive.open do |server|
        # ramp 0..300/s over 1 s, hold 300/s 1 s, spike 900/s 0.5 s, hold 300/s 1 s
        run = run_ok(server.target, "-c", 32, "-t", 2, "--profile", "0:300:1,300:300:1,900:900:0.5,300:300:1", deadline: 15)
        stages = run.json.fetch("stages")
        assert_equal [150.0, 300.0, 450.0, 300.0], stages.map { |s| s["asked"] }
        assert_equal [0.0, 1.0, 2.0, 2.5], stages.map { |s| s["start_s"] }
        stages.each_with_index do |s, i|
          assert_in_delta s["asked"], s["sent"], s["asked"] * 0.05, "stage #{i}: #{s}"
          assert_equal s["sent"], s["good"] + s["errors"], "stage #{i}: every request sent ended: #{s}"
          assert_equal 0, s["dropped"], "stage #{i}"
          assert_equal s["good"], s["latency_us"]["count"]
        end
        assert_in_delta 3.5, run.json["duration_s"], 0.2
        assert_equal stages.sum { |s| s["sent"] }, run.sent
        # In order: the timeline's seconds follow the stages' rates.
        per_second = run.json["timeline"].map { |t| t["completed"] }
        assert_operator per_second[0], :<, per_second[1], "the ramp rises: #{per_second}"
        assert_operator per_second[2], :>, per_second[1] * 1.5, "the spike is in the third second: #{per_second}"
      end
    end

    def test_a_profile_excludes_a_constant_rate_and_a_warm_up
      KeepAlive.open do |server|
        assert_one_line_error(run_engine(server.target, "--profile", "10:10:1", "-R", "5"), 2)
        assert_one_line_error(run_engine(server.target, "--profile", "10:10:1", "-w", "1"), 2)
        assert_one_line_error(run_engine(server.target, "--profile", "10:10"), 2)
        assert_one_line_error(run_engine(server.target, "--profile", "0:0:1"), 2)
        assert_nil run_ok(server.target, "-c", 2, "-n", 10).json.fetch("stages")
      end
    end
  end
end
