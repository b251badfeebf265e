# frozen_string_literal: true

# test: light (its servers stall and time out on loopback: 1.7 CPU-s in 12 s, so it runs beside the serial files)

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # One test per engine fault found in a code read (issue 15, point 8) that a
  # loopback server can show; the parser and histogram faults are in the C
  # tests (ext/arena_load/test), the descriptor one in test_worker.c.
  class EngineFaultsTest < EngineCase
    include TestServers

    # One connection that never answers and 1000 requests/s due: the backlog
    # is never empty. The engine must wait for an event, not spin its core.
    def test_open_model_backlog_does_not_spin
      Stall.open do |server|
        before = Process.times
        run = run_ok(server.target, "-c", 1, "-R", 1000, "-d", 1, "--timeout", 0.4, deadline: 6)
        after = Process.times
        cpu = (after.cutime - before.cutime) + (after.cstime - before.cstime)
        assert_operator cpu, :<, 0.3 * run.elapsed, "busy loop while backlogged (#{cpu} CPU s):\n#{run.describe}"
        reported = run.json.dig("engine", "cpu_user_s") + run.json.dig("engine", "cpu_sys_s")
        assert_in_delta cpu, reported, 0.05, "the engine reports its own CPU time"
      end
    end

    # 50 ms per request, one every 25 ms, four connections that may pipeline
    # four each: two connections in use keep up. Filling the first connection
    # before using another would queue requests behind each other (50, 100,
    # 150 ms ... and growing).
    def test_open_model_pipelining_prefers_an_idle_connection
      Freezer.open(service: 0.05, freeze: 0, period: 1) do |server|
        run = run_ok(server.target, "-R", 40, "-c", 4, "-p", 4, "-d", 1.5, "--timeout", 3, deadline: 8)
        assert_no_errors(run)
        assert_operator run.completed, :>=, 50, run.describe
        assert_operator run.latency["p90"], :<, 90_000, "requests queued behind a busy connection:\n#{run.describe}"
      end
    end

    # Against a server that closes after every response, the open model opens
    # the next connection when the last one closes, so it is ready (and idle
    # for a while) when the next request is due: the handshake is not in the
    # latency. Reconnecting only when a request is due gives idle times of ~0.
    def test_open_model_reconnects_on_completion
      CloseAfterEach.open do |server|
        run = run_ok(server.target, "-R", 100, "-c", 4, "-d", 1.5, deadline: 6)
        assert_no_errors(run)
        idle = server.idle_times.sort
        assert_operator idle.size, :>=, 100, run.describe
        median = idle[idle.size / 2]
        assert_operator median, :>, 0.002, "connections opened only when a request was due (median idle #{median} s)"
      end
    end

    # Requests that could never be sent still have a latency: at least from
    # their intended start to the end of the run.
    def test_dropped_requests_have_a_latency
      Stall.open do |server|
        run = run_ok(server.target, "-c", 1, "-R", 200, "-d", 1, "--timeout", 0.3, deadline: 6)
        dropped = run.json.dig("open", "dropped")
        assert_operator dropped, :>, 50, run.describe
        assert_operator run.latency["count"], :>=, dropped, run.describe
        assert_operator run.latency["p99"], :>, 100_000, "p99 hides the dropped requests:\n#{run.describe}"
        assert_operator run.latency["p50"], :>, 0, run.describe
      end
    end

    # limit 1: the server answers one request per connection, reads the next
    # and closes 10 ms later without answering: every second request is sent
    # again, late. It was on time when first sent (one every 50 ms, nothing
    # else in flight), so it must not count as late.
    def test_late_is_not_counted_again_when_sent_again
      KeepAlive.open(limit: 1, close_delay: 0.01) do |server|
        run = run_ok(server.target, "-R", 20, "-c", 1, "-d", 1.5, deadline: 6)
        assert_no_errors(run)
        resent = run.json.dig("connections", "resent")
        late = run.json.dig("open", "late")
        assert_operator resent, :>=, 8, run.describe
        assert_operator late, :<, resent / 2.0, "requests sent again counted late again:\n#{run.describe}"
      end
    end

    # A 1 ms timeline over 2 s and 2 threads: 2,000 entries. One latency
    # histogram per interval and thread (11 KB each) would be 44 MB.
    def test_timeline_memory_is_bounded
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 2, "-t", 2, "-d", 2, "--timeline-ms", 1, deadline: 8)
        timeline = run.json["timeline"]
        assert_includes 1990..2010, timeline.size, run.describe[0, 500]
        assert_equal run.completed, timeline.sum { |entry| entry["completed"] }
        assert_operator run.json.dig("engine", "max_rss_kb"), :<, 20_000, "timeline memory grows with its length"
      end
    end

    # A server that accepts and resets every connection: the engine backs off
    # from the second reset in a row (10 ms doubling to 500 ms) instead of
    # reconnecting as fast as it can.
    def test_repeated_resets_back_off
      Reset.open do |server|
        run = run_ok(server.target, "-c", 1, "-d", 1, "--timeout", 1, deadline: 6)
        assert_operator run.errors["reset"], :>, 0, run.describe
        assert_operator server.accepted, :<=, 15, "reconnected without back-off:\n#{run.describe}"
      end
    end

    # 400 ms per response on 4 connections, SIGINT at 1.0 s: 8 responses came
    # before the signal; the 4 in flight finish at 1.2 s, after the end of the
    # counted phase, so they must not be counted.
    def test_sigint_closed_run_does_not_count_responses_drained_after_it
      Freezer.open(service: 0.4, freeze: 0, period: 1) do |server|
        run = run_engine(server.target, "-c", 4, "-d", 30, "--timeout", 2, "--json", interrupt_after: 1.0, deadline: 6)
        assert_equal 0, run.exit_code, run.describe
        assert_consistent(run)
        assert_operator run.completed, :<=, 8, "responses after the signal were counted:\n#{run.describe}"
        assert_operator run.completed, :>=, 4, run.describe
        assert_in_delta run.completed / run.json["duration_s"], run.json["throughput_rps"], 0.5
      end
    end
  end
end
