# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "timeout"

# --queue-time all (every request timed): /sleep?ms=50 works about 50 ms and waits about nothing at
# low load; with more connections than Puma has threads, the wait grows.
class QueueTimeIntegrationTest < Arena::ArenaCase
  BUSY = "puma"

  def test_work_and_queue_apart_at_low_load_and_near_saturation
    file = File.join(@tmp, "requests.yml")
    File.write(file, %(requests:\n  sleep50: {path: "/sleep?ms=50", expect_body: "slept 50 ms"}\n))
    low = arena("run", "--servers", "puma", "--requests", file, "--queue-time", "all", "-c", "2", "-d", "1.5", "-w", "0.3", "--rounds", "1")
    assert low.status.success?, low.describe
    q = low.measurements.first.fetch("queue")
    assert_in_delta 50_000, q["work_p50_us"], 8_000, q.inspect
    assert_operator q["queue_p50_us"], :<, 5_000, "hardly any wait with 2 connections for 10 threads: #{q}"
    assert_operator q["n"], :>=, 40
    refute_match(/waiting and working/, low.stdout, "detail: --verbose and the reports")
    assert_includes File.read(File.join(low.dir, "report.md")), "### Waiting and working"

    # 2 workers x 5 threads = 10 slots, 40 connections: the rest queue. By
    # Little's law each request waits (40 - 10) / 10 x 50 ms = 150 ms; a busy
    # machine only lengthens it. At least half of that, which the run at
    # 2 connections is nowhere near (its wait is not compared: a race
    # between two runs that a busy machine can decide).
    busy = arena("run", "--servers", BUSY, "--requests", file, "--queue-time", "all", "-c", "40", "-d", "1.5", "-w", "0.3", "--rounds", "1")
    assert busy.status.success?, busy.describe
    b = busy.measurements.first.fetch("queue")
    assert_in_delta 50_000, b["work_p50_us"], 10_000, b.inspect
    assert_operator b["queue_p50_us"], :>=, 75_000, "the wait of 30 connections beyond 10 slots: #{b}"
  end
end
