# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Effective concurrency on synthetic figures of known truth: Little's law on
# the app's working time gives the requests in service at once (busy slots);
# a config that runs far fewer than it declares while requests wait and the
# CPU has room is under-concurrent.
class ConcurrencyTest < Minitest::Test
  cover "Arena::Concurrency*"

  # Agoo workers=2 threads=4 on /io?ms=50 at 32 connections (issue 33):
  # 19.7 req/s x 50 ms = one request at a time, of 8 declared.
  AGOO = {rps: 19.7, working_mean_us: 50_300, working_p50_us: 50_100, waiting_p50_us: 1_550_000, declared: 8, connections: 32,
          server_cpu_pct: 3.0, server_cores: 1}.freeze

  def call(**changes) = Arena::Concurrency.call(Arena::Concurrency::Figures.new(**AGOO.merge(changes)).freeze)

  def test_one_request_at_a_time_of_eight_declared_is_under_concurrent
    r = call
    assert r.frozen?
    assert_equal 0.99, r.busy_slots
    assert_equal "under-concurrent", r.verdict.word
    assert_equal "0.99 of 8 slots busy (19.7 req/s x 50.3 ms working; 8 declared, 32 connections), while requests waited " \
      "1550.0 ms p50 before the app and worked 50.1 ms: it ran fewer requests at once than its settings declare", r.verdict.reason
  end

  # Puma workers=2 threads=4: 157 req/s x 50.3 ms = 7.9 of 8.
  def test_slots_as_busy_as_declared_are_ok
    r = call(rps: 157.0, waiting_p50_us: 152_000)
    assert_equal 7.9, r.busy_slots
    assert_equal "ok", r.verdict.word
    assert_equal "7.9 of 8 slots busy (157.0 req/s x 50.3 ms working; 8 declared, 32 connections)", r.verdict.reason
  end

  # 60% of the slots busy is the line: Iodine's one worker of two ran half
  # (4.09 of 8), and that is under-concurrent.
  def test_the_line_is_sixty_percent_of_the_slots_the_load_could_fill
    assert_equal "ok", call(rps: 4.8 / 0.0503).verdict.word
    assert_equal "under-concurrent", call(rps: 4.79 / 0.0503).verdict.word
    assert_equal "under-concurrent", call(rps: 4.09 / 0.0503).verdict.word, "half the slots"
    # More slots than connections: the connections are the ceiling (19.2 of 32).
    assert_equal "ok", call(rps: 19.2 / 0.0503, declared: 64).verdict.word
    assert_match(/ of 32 slots busy/, call(declared: 64).verdict.reason)
    # No fixed ceiling (fibers, a thread per connection): the connections are.
    none = call(declared: nil, rps: 15.9 / 0.0503)
    assert_equal "under-concurrent", none.verdict.word
    assert_match(/ of 32 slots busy \(.*; no fixed ceiling, 32 connections\)/, none.verdict.reason)
  end

  def test_requests_that_did_not_wait_were_not_held_by_the_slots
    r = call(waiting_p50_us: 50_000)
    assert_equal "ok", r.verdict.word
    assert_equal "0.99 of 8 slots busy (19.7 req/s x 50.3 ms working; 8 declared, 32 connections): requests waited 50.0 ms p50 " \
      "before the app, less than they worked; the slots were not what held them", r.verdict.reason
    assert_equal "under-concurrent", call(waiting_p50_us: 50_100).verdict.word, "as long as they worked"
    assert_equal "ok", call(waiting_p50_us: nil).verdict.word
  end

  def test_a_busy_cpu_is_the_limit_not_the_slots
    r = call(server_cpu_pct: 50.0)
    assert_equal "ok", r.verdict.word
    assert_match(/: the server used 50% of its cores, the CPU is the limit\z/, r.verdict.reason)
    assert_equal "under-concurrent", call(server_cpu_pct: 49.9).verdict.word
    assert_equal "under-concurrent", call(server_cpu_pct: 90.0, server_cores: 2).verdict.word, "45% of two cores"
    assert_equal "ok", call(server_cpu_pct: 90.0, server_cores: 0).verdict.word, "at least one core"
    assert_equal "under-concurrent", call(server_cpu_pct: nil).verdict.word
  end

  # The built-in app's /server on iodine in a default run: 9,473 req/s x
  # 0.02 ms of app work is 0.19 busy of 8, yet nothing is under-concurrent:
  # the server's own time per request sets the pace.
  def test_an_app_that_works_under_a_millisecond_is_not_judged_by_its_slots
    fast = call(rps: 9473.0, working_mean_us: 20, working_p50_us: 15, waiting_p50_us: 400, connections: 16, server_cpu_pct: 30.0)
    assert_equal "ok", fast.verdict.word
    assert_match(/: the app works under 1\.0 ms a request; the server's own time per request, not its slots, sets the pace\z/,
      fast.verdict.reason)
    assert_equal "ok", call(rps: 100.0, working_mean_us: 999, working_p50_us: 999).verdict.word
    assert_equal "under-concurrent", call(rps: 100.0, working_mean_us: 1000, working_p50_us: 1000).verdict.word
  end

  # The busy-CPU reason whole; no core count recorded is one core.
  def test_a_busy_cpu_is_said_with_the_slots_and_unknown_cores_are_one
    assert_equal "0.99 of 8 slots busy (19.7 req/s x 50.3 ms working; 8 declared, 32 connections): the server used 60% of " \
      "its cores, the CPU is the limit", call(server_cpu_pct: 60.0, server_cores: nil).verdict.reason
    assert_equal "under-concurrent", call(server_cpu_pct: 49.0, server_cores: nil).verdict.word
  end

  # The rate is said to one decimal, whatever it was measured to.
  def test_the_rate_is_said_to_one_decimal
    assert_match(/ \(19\.7 req\/s x 50\.3 ms working;/, call(rps: 19.74).verdict.reason)
    assert_match(/ \(19\.8 req\/s x /, call(rps: 19.75).verdict.reason)
  end

  def test_the_mean_working_time_first_then_the_median
    assert_equal 0.99, call(working_mean_us: nil, working_p50_us: 50_100).busy_slots
    assert_equal 1.97, call(working_mean_us: 100_000).busy_slots
  end

  def test_what_it_cannot_judge
    none = call(working_mean_us: nil, working_p50_us: nil)
    assert_nil none.busy_slots
    assert none.frozen?
    assert_equal "cannot judge: no waiting/working split (--queue-time on)", none.verdict.to_s
    refute call(rps: nil).verdict.judged?
    no_conns = call(connections: 0)
    assert_equal 0.99, no_conns.busy_slots
    assert_equal "cannot judge: no connections to fill the slots", no_conns.verdict.to_s
    assert_equal "cannot judge: no connections to fill the slots", call(connections: nil).verdict.to_s
  end

  # The finding: one line per row, the first run's reason.
  def test_the_finding_says_it_once_per_row
    summary = Arena::Results::Summary.new(flags: ["under-concurrent"].freeze, concurrency: "0.99 of 8 slots busy").freeze
    m = ->(round, s) { Arena::Results::Measurement.new(server: "agoo", workload: "io", scenario: "steady", variant: "keep-alive", repeat: round, load: :measured, summary: s).freeze }
    ok = Arena::Results::Summary.new(flags: [].freeze).freeze
    document = Arena::Results::Document.new(measurements: [m.call(1, summary), m.call(2, ok), m.call(3, summary)].freeze)
    why = " (why: #{Arena::Servers::Agoo.concurrency_note})"
    assert_equal ["agoo io steady keep-alive: under-concurrent (2 of 3 runs): 0.99 of 8 slots busy#{why}"], Arena::Report::Findings.concurrency_lines(document)
    single = Arena::Results::Document.new(measurements: [m.call(1, summary)].freeze)
    assert_equal ["agoo io steady keep-alive: under-concurrent: 0.99 of 8 slots busy#{why}"], Arena::Report::Findings.concurrency_lines(single)
  end

  # Issue 34 asked why Agoo served one request at a time: its Rack handler
  # drops the threads (read from its source), and the finding says so; a
  # server with no known reason gets the figures alone.
  def test_a_known_reason_from_the_servers_source_is_said_with_the_finding
    summary = Arena::Results::Summary.new(flags: ["under-concurrent"].freeze, concurrency: "1 of 8 slots busy").freeze
    of = ->(server) { Arena::Results::Document.new(measurements: [Arena::Results::Measurement.new(server: server, workload: "io", scenario: "steady", variant: "keep-alive", repeat: 1, load: :measured, summary: summary).freeze].freeze) }
    assert_match(/1 of 8 slots busy \(why: Agoo's Rack handler sets thread_count 0 .*one request at a time/, Arena::Report::Findings.concurrency_lines(of.call("agoo:workers=2,threads=4")).first)
    assert_equal ["puma:workers=2 io steady keep-alive: under-concurrent: 1 of 8 slots busy"], Arena::Report::Findings.concurrency_lines(of.call("puma:workers=2"))
  end
end
