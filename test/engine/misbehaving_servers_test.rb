# frozen_string_literal: true

# test: light (loopback servers that misbehave and wait: 0.7 CPU-s in 6 s, so it runs beside the serial files)

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # Each misbehaving server must show up as exactly its own kind of error, and
  # the well-behaved ones (including those that close after every response)
  # as none at all.
  class EngineMisbehavingServersTest < EngineCase
    include TestServers

    def test_reset_after_request_counts_resets
      Reset.open do |server|
        run = run_ok(server.target, "-c", 2, "-n", 20, "--timeout", 2, deadline: 6)
        assert_equal 20, run.sent, run.describe
        assert_equal 0, run.completed, run.describe
        assert_only_errors(run, "reset" => 20)
        assert_equal 20, run.json["timeline"].sum { |second| second["errors"] }, run.describe
      end
    end

    def test_close_before_response_counts_closed_before_response
      CloseBeforeResponse.open do |server|
        run = run_ok(server.target, "-c", 2, "-n", 20, "--timeout", 2, deadline: 6)
        assert_equal 20, run.sent, run.describe
        assert_equal 0, run.completed, run.describe
        assert_only_errors(run, "closed_before_response" => 20)
      end
    end

    def test_stalled_responses_time_out
      Stall.open do |server|
        run = run_ok(server.target, "-c", 2, "-n", 4, "--timeout", 0.5, deadline: 6)
        assert_equal 4, run.sent, run.describe
        assert_equal 0, run.completed, run.describe
        assert_only_errors(run, "timeout" => 4)
        # Two timeouts in a row per connection: about 1 s, certainly not 4 s.
        assert_in_delta 1.0, run.elapsed, 1.0, run.describe
      end
    end

    def test_slow_chunked_responses_complete_with_their_latency
      SlowChunks.open do |server|
        run = run_ok(server.target, "-c", 2, "-n", 6, "--timeout", 5, deadline: 6)
        assert_equal 6, run.completed, run.describe
        assert_no_errors(run)
        assert_equal({"200" => 6}, run.json["status"])
        floor_us = server.minimum_latency * 1_000_000 * 0.99 # histogram precision
        assert_operator run.latency["min"], :>=, floor_us, run.describe
        assert_operator run.latency["p50"], :>=, floor_us, run.describe
        assert_operator run.latency["max"], :<, 2_000_000, run.describe
      end
    end

    def test_expected_body_is_matched_against_the_dechunked_body
      SlowChunks.open(delay: 0.005) do |server|
        # "helloworld" only exists once the chunks "hello", "wor", "ld" are joined.
        run = run_ok(server.target, "-c", 1, "-n", 3, "--expect-body", server.body, deadline: 6)
        assert_equal 3, run.completed, run.describe
        assert_no_errors(run)
      end
    end

    def test_connection_close_after_every_response_is_not_an_error
      CloseAfterEach.open(style: :connection_close) do |server|
        run = run_ok(server.target, "-c", 4, "-n", 300, deadline: 8)
        assert_equal 300, run.completed, run.describe
        assert_no_errors(run)
        opened = run.json.dig("connections", "opened")
        # One connection per response, plus at most one spare per slot.
        assert_includes 300..304, opened, run.describe
        assert_equal 300, server.served
      end
    end

    def test_http10_response_delimited_by_close_is_not_an_error
      CloseAfterEach.open(style: :http10) do |server|
        run = run_ok(server.target, "-c", 4, "-n", 200, deadline: 8)
        assert_equal 200, run.completed, run.describe
        assert_no_errors(run)
        assert_includes 200..204, run.json.dig("connections", "opened"), run.describe
        assert_operator run.json["bytes_received"], :>=, 200 * CloseAfterEach::BODY.bytesize
      end
    end

    def test_pipelined_requests_against_close_after_each_are_sent_again
      CloseAfterEach.open do |server|
        run = run_ok(server.target, "-c", 2, "-p", 4, "-n", 100, deadline: 8)
        assert_equal [100, 100], [run.sent, run.completed], run.describe
        assert_no_errors(run)
        assert_equal 100, server.served
      end
    end

    def test_keep_alive_limit_close_between_responses_is_not_an_error
      KeepAlive.open(limit: 3) do |server|
        # One connection: requests 4, 7 and 10 each meet a close and must be
        # sent again; the 10th is also the last of the budget.
        run = run_ok(server.target, "-c", 1, "-n", 10, deadline: 6)
        assert_equal [10, 10], [run.sent, run.completed], run.describe
        assert_no_errors(run)
        run = run_ok(server.target, "-c", 4, "-n", 300, deadline: 8)
        assert_equal [300, 300], [run.sent, run.completed], run.describe
        assert_no_errors(run)
        assert_includes 100..110, run.json.dig("connections", "opened"), run.describe
      end
    end

    def test_garbage_answers_are_parse_errors
      Garbage.open do |server|
        run = run_ok(server.target, "-c", 2, "-n", 10, deadline: 6)
        assert_equal 0, run.completed, run.describe
        assert_only_errors(run, "parse" => 10)
        # The first of them is described once in the engine's log: why, and the bytes.
        told = run.stderr_lines.grep(/unparsable response/)
        assert_equal 1, told.size, run.describe
        assert_match(/\(not an HTTP\/1\.x status line\) at byte \d+ .*SMTP\/1\.0 220 hello there\\x0d\\x0a/, told.first)
      end
    end

    def test_unix_socket_target
      KeepAlive.open(unix: true) do |server|
        run = run_ok(server.target("/via-unix"), "-c", 4, "-n", 300, deadline: 8)
        assert_equal 300, run.completed, run.describe
        assert_no_errors(run)
        assert_equal({"GET /via-unix" => 300}, server.counts)
      end
    end

    def test_keep_alive_reuses_connections
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 4, "-n", 400, deadline: 8)
        assert_equal 400, run.completed, run.describe
        assert_no_errors(run)
        assert_equal({"200" => 400}, run.json["status"])
        assert_equal 4, run.json.dig("connections", "opened"), run.describe
        # Plus the engine's start-up probe, which connects once and sends nothing.
        assert_includes 4..5, server.accepted
        assert_equal 400, server.total_requests
        assert_operator run.json["bytes_received"], :>=, 400 * KeepAlive::DEFAULT_BODY.bytesize
      end
    end

    # 100 KB bodies span several reads; every byte is counted once.
    def test_large_bodies_are_read_whole
      KeepAlive.open(body: "x" * 100_000) do |server|
        run = run_ok(server.target, "-c", 2, "-n", 20, "--expect-body", "xxxx", deadline: 6)
        assert_equal 20, run.completed, run.describe
        assert_no_errors(run)
        assert_equal 20 * server.response_size, run.json["bytes_received"], run.describe
      end
    end

    def test_no_keep_alive_against_a_keep_alive_server
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 4, "-n", 300, "--no-keep-alive", deadline: 8)
        assert_equal 300, run.completed, run.describe
        assert_no_errors(run)
        assert_includes 300..304, run.json.dig("connections", "opened"), run.describe
        assert_includes 300..305, server.accepted # one more: the start-up probe
      end
    end
  end
end
