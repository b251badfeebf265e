# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # What the engine sends (method, headers, body, mix) and what it checks in
  # the answers (status, body substring).
  class EngineExpectationsTest < EngineCase
    include TestServers

    def test_expected_status_matches
      KeepAlive.open do |server|
        run = run_ok(server.target("/status/503"), "-c", 2, "-n", 30, "--expect-status", 503, deadline: 6)
        assert_no_errors(run)
        assert_equal({"503" => 30}, run.json["status"])
      end
    end

    def test_unexpected_status_is_counted
      KeepAlive.open do |server|
        run = run_ok(server.target("/status/503"), "-c", 2, "-n", 30, "--expect-status", 200, deadline: 6)
        assert_equal 30, run.sent, run.describe
        assert_only_errors(run, "unexpected_status" => 30)
        assert_equal({"503" => 30}, run.json["status"])
      end
    end

    def test_expected_body_matches_and_mismatches
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 2, "-n", 30, "--expect-body", "arena", deadline: 6)
        assert_no_errors(run)
        run = run_ok(server.target, "-c", 2, "-n", 30, "--expect-body", "not in the body", deadline: 6)
        assert_only_errors(run, "body_mismatch" => 30)
      end
    end

    def test_method_headers_and_body_reach_the_server
      KeepAlive.open do |server|
        with_file("upload", "name=arena&size=42") do |body_file|
          run = run_ok(server.target("/upload"), "-n", 5, "-c", 1, "-m", "POST", "--body", body_file,
            "-H", "X-Arena-Test: yes", "-H", "Content-Type: application/x-www-form-urlencoded", deadline: 6)
          assert_no_errors(run)
          request = server.last_request("/upload")
          assert_equal "POST", request.method
          assert_equal "yes", request.headers["x-arena-test"]
          assert_equal "application/x-www-form-urlencoded", request.headers["content-type"]
          assert_equal "name=arena&size=42", request.body
          assert_equal({"POST /upload" => 5}, server.counts)
        end
      end
    end

    def test_mix_weights_are_respected
      KeepAlive.open do |server|
        with_file("mix", "3 GET /heavy 200\n1 GET /light 200\n") do |mix|
          run = run_ok(server.target, "-c", 4, "-n", 2000, "--mix", mix, deadline: 8)
          assert_equal 2000, run.completed, run.describe
          assert_no_errors(run)
          counts = server.counts
          assert_equal 2000, counts.fetch("GET /heavy", 0) + counts.fetch("GET /light", 0), counts.to_s
          # 3:1 is 75%; a binomial draw of 2000 has sigma ~1%, so 5 points is
          # a wide margin (and a deterministic scheduler lands on 75% exactly).
          assert_in_delta 0.75, counts.fetch("GET /heavy", 0) / 2000.0, 0.05, counts.to_s
        end
      end
    end

    def test_mix_lines_carry_method_and_expectations
      KeepAlive.open do |server|
        lines = <<~MIX
          1 GET /status/404 404
          1 POST /form 200 arena
          1 GET /plain 200 not-in-the-body
        MIX
        with_file("mix", lines) do |mix|
          run = run_ok(server.target, "-c", 3, "-n", 300, "--mix", mix, deadline: 8)
          assert_equal 300, run.sent, run.describe
          counts = server.counts
          assert_equal %w[GET\ /plain GET\ /status/404 POST\ /form], counts.keys.sort, counts.to_s
          # Only the third line's responses miss their expected body.
          assert_only_errors(run, "body_mismatch" => counts["GET /plain"])
          assert_equal counts["GET /status/404"], run.json.dig("status", "404"), run.describe
        end
      end
    end
  end
end
