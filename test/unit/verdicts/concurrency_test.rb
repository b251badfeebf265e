# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Effective concurrency on synthetic figures of known truth: Little's law on
# the app's working time gives the requests in service at once (busy slots);
# a config that runs far fewer than it declares while requests wait and the
# CPU has room is under-concurrent.
class ConcurrencyTest < Minitest::Test
  cover "Arena::Verdicts::Concurrency*"

  # Agoo workers=2 threads=4 on /io?ms=50 at 32 connections (issue 33):
  # 19.7 req/s x 50 ms = one request at a time, of 8 declared.
  AGOO = {rps: 19.7, working_mean_us: 50_300, working_p50_us: 50_100, waiting_p50_us: 1_550_000, declared: 8, connections: 32,
          server_cpu_pct: 3.0, server_cores: 1}.freeze

  def call(**changes) = Arena::Verdicts::Concurrency.call(Arena::Verdicts::Concurrency::Figures.new(**AGOO.merge(changes)).freeze)

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

  # Iodine workers=2 threads=4 on /io?ms=50 at 32 connections (a real failed
  # capacity run): the kernel handed its workers 29 and 3 of the keep-alive
  # connections (the master holds none), 138.5 req/s x 49.5 ms = 6.86 busy.
  IODINE = {rps: 138.5, working_mean_us: 49_500, working_p50_us: 49_500, waiting_p50_us: 305_000, declared: 8, connections: 32,
            server_cpu_pct: 3.0, server_cores: 1, spread: [0, 29, 3], processes: 2}.freeze

  def iodine(**changes) = Arena::Verdicts::Concurrency.call(Arena::Verdicts::Concurrency::Figures.new(**IODINE.merge(changes)).freeze)

  # A worker with 3 connections keeps 3 of its 4 threads busy: 4 + 3 = 7 of
  # 8 reachable, at most 141 req/s; the 6.86 busy are all of those 7.
  def test_connections_spread_unevenly_over_workers_reach_fewer_slots
    r = iodine
    assert_equal 7, r.reachable_slots
    assert_equal "uneven", r.uneven.word
    assert_equal "connections spread unevenly over 2 workers (29 and 3 of 32): 7 of 8 slots reachable, so at most 141.4 req/s " \
      "at 49.5 ms a request", r.uneven.reason
    assert_equal "ok", r.verdict.word
    assert_equal "6.86 of 7 slots busy (138.5 req/s x 49.5 ms working; 8 declared, 7 reachable, 32 connections)", r.verdict.reason
    even = iodine(spread: [16, 0, 16])
    assert_equal [8, "ok"], [even.reachable_slots, even.uneven.word]
    assert_equal "connections spread evenly enough over 2 workers (16 and 16 of 32): 8 of 8 slots reachable", even.uneven.reason
    assert_equal 7, iodine(spread: [3, 29]).reachable_slots, "the order of the processes is not the spread's"
  end

  # Every connection in one worker (the case UNDER's note records): 4 of 8
  # reachable and 4.09 busy. The spread explains it, so it is uneven and not
  # under-concurrent; what the reachable slots do not explain still is.
  def test_an_uneven_spread_that_explains_the_shortfall_is_not_under_concurrent
    one = iodine(rps: 4.09 / 0.0495, spread: [32, 0, 0])
    assert_equal [4, "uneven", "ok"], [one.reachable_slots, one.uneven.word, one.verdict.word]
    assert_match(/ over 2 workers \(32 and 0 of 32\): 4 of 8 slots reachable, so at most 80\.8 req\/s /, one.uneven.reason)
    assert_equal "under-concurrent", iodine(rps: 4.09 / 0.0495, spread: nil).verdict.word, "unread, the declared 8 are the fill"
    assert_equal "under-concurrent", iodine(rps: 2.39 / 0.0495, spread: [32, 0]).verdict.word, "2.39 of 4 reachable is under 60%"
    assert_equal "ok", iodine(rps: 2.4 / 0.0495, spread: [32, 0]).verdict.word
    # Agoo's one request at a time, however its connections fell: both.
    agoo = call(spread: [29, 3], processes: 2)
    assert_equal ["uneven", "under-concurrent"], [agoo.uneven.word, agoo.verdict.word]
    assert_match(/\A0\.99 of 7 slots busy \(19\.7 req\/s x 50\.3 ms working; 8 declared, 7 reachable, 32 connections\), while/, agoo.verdict.reason)
  end

  # One slot is 5% of 20: 19 of 20 reachable goes unsaid, 18 is uneven. Past
  # 20 slots one slot costs less than the figures are read within.
  def test_a_slot_short_within_five_percent_is_even_enough
    assert_equal [19, "ok"], iodine(declared: 20, spread: [23, 9]).then { |r| [r.reachable_slots, r.uneven.word] }
    assert_equal [18, "uneven"], iodine(declared: 20, spread: [24, 8]).then { |r| [r.reachable_slots, r.uneven.word] }
    assert_equal [31, "ok"], iodine(declared: 32, spread: [17, 15]).then { |r| [r.reachable_slots, r.uneven.word] }
    # More slots a worker than connections: one worker can hold them all.
    assert_equal [32, "ok"], iodine(declared: 64, spread: [32, 0]).then { |r| [r.reachable_slots, r.uneven.word] }
    assert_match(/: 32 of 32 slots reachable\z/, iodine(declared: 64, spread: [32, 0]).uneven.reason)
  end

  # Three workers, one gone: it counts as none held; the master is left out.
  def test_the_serving_processes_are_as_many_as_the_config_declares
    r = iodine(declared: 12, processes: 3, spread: [0, 30, 2])
    assert_equal 6, r.reachable_slots
    assert_match(/ over 3 workers \(30, 2 and 0 of 32\): 6 of 12 slots reachable/, r.uneven.reason)
    assert_equal 9, iodine(declared: 12, processes: 3, spread: [1, 25, 5, 1]).reachable_slots, "the three that hold most"
    gone = iodine(declared: 12, processes: 3, spread: [32])
    assert_equal 4, gone.reachable_slots
    assert_match(/ over 3 workers \(32, 0 and 0 of 32\): 4 of 12 slots reachable/, gone.uneven.reason)
  end

  def test_what_the_spread_cannot_tell
    none = "cannot judge: no spread of connections over processes"
    [{spread: nil}, {processes: nil}, {processes: 1}, {declared: nil}, {declared: 9}, {spread: [29, 2]}, {spread: [0, 0]}].each do |change|
      r = iodine(**change)
      assert_nil r.reachable_slots, change.inspect
      assert_equal none, r.uneven.to_s, change.inspect
    end
    assert_equal 7, iodine(spread: [30, 3], connections: 33).reachable_slots, "33 held of 33"
    assert_equal 8, iodine(spread: [20, 20], connections: 32).reachable_slots, "more held than asked"
    unknown = iodine(connections: nil)
    assert_equal [7, "ok"], [unknown.reachable_slots, unknown.uneven.word], "no connections known: none to fill"
    # Without the app's split the spread still says what it reached, but no rate.
    bare = iodine(working_mean_us: nil, working_p50_us: nil)
    assert_equal [nil, 7, "uneven"], [bare.busy_slots, bare.reachable_slots, bare.uneven.word]
    assert_match(/: 7 of 8 slots reachable\z/, bare.uneven.reason)
    assert bare.frozen?
    assert_match(/so at most 140\.0 req\/s at 50\.0 ms/, iodine(working_mean_us: nil, working_p50_us: 50_000).uneven.reason)
  end

  # The finding: one line per row, the first run's reason.
  def test_the_uneven_finding_is_said_once_per_row
    said = "connections spread unevenly over 2 workers (29 and 3 of 32): 7 of 8 slots reachable"
    summary = Arena::Results::Summary.new(flags: ["uneven"].freeze, uneven: said).freeze
    m = ->(round, s) { Arena::Results::Measurement.new(server: "iodine:workers=2,threads=4", workload: "io", scenario: "steady", variant: "keep-alive", repeat: round, load: :measured, summary: s).freeze }
    ok = Arena::Results::Summary.new(flags: [].freeze).freeze
    document = Arena::Results::Document.new(measurements: [m.call(1, ok), m.call(2, summary)].freeze)
    assert_equal ["iodine:workers=2,threads=4 io steady keep-alive: uneven (1 of 2 runs): #{said}"], Arena::Report::Findings.uneven_lines(document)
  end

  # The rate the reachable slots allow is said from a millisecond of work a
  # request up: at exactly SHORTEST_WORK_US it is said, a microsecond under it not.
  def test_the_spread_s_rate_limit_is_said_from_a_millisecond_of_work
    at = iodine(working_mean_us: 1_000)
    assert_equal "uneven", at.uneven.word
    assert_match(/: 7 of 8 slots reachable, so at most 7000\.0 req\/s at 1\.0 ms a request\z/, at.uneven.reason)
    under = iodine(working_mean_us: 999)
    assert_match(/: 7 of 8 slots reachable\z/, under.uneven.reason)
  end

  # The summary's two flags read the one Result: each returns its own
  # verdict where it is the finding, and nil otherwise.
  Held = Struct.new(:concurrency)

  def test_the_uneven_and_under_concurrent_flags_each_return_their_own_finding
    verdict = Arena::Verdicts::Verdict
    uneven = verdict.of("uneven", "spread")
    under = verdict.of("under-concurrent", "slots")
    both = Held.new(Arena::Verdicts::Concurrency::Result.new(verdict: under, uneven: uneven))
    assert_same uneven, Arena::Verdicts::Concurrency::Uneven.flag(both)
    assert_same under, Arena::Verdicts::Concurrency::Under.flag(both)
    neither = Held.new(Arena::Verdicts::Concurrency::Result.new(verdict: verdict.of("ok", "x"), uneven: verdict.of("ok", "y")))
    assert_nil Arena::Verdicts::Concurrency::Uneven.flag(neither)
    assert_nil Arena::Verdicts::Concurrency::Under.flag(neither)
    unjudged = Held.new(Arena::Verdicts::Concurrency::Result.new(verdict: verdict.cannot_judge("a"), uneven: verdict.cannot_judge("b")))
    assert_nil Arena::Verdicts::Concurrency::Uneven.flag(unjudged)
    assert_nil Arena::Verdicts::Concurrency::Under.flag(unjudged)
    # Each reads its own half: an uneven spread alone is not under-concurrent, and the reverse.
    swapped = Held.new(Arena::Verdicts::Concurrency::Result.new(verdict: verdict.of("ok", "x"), uneven: uneven))
    assert_same uneven, Arena::Verdicts::Concurrency::Uneven.flag(swapped)
    assert_nil Arena::Verdicts::Concurrency::Under.flag(swapped)
    alone = Held.new(Arena::Verdicts::Concurrency::Result.new(verdict: under, uneven: verdict.of("ok", "y")))
    assert_nil Arena::Verdicts::Concurrency::Uneven.flag(alone)
    assert_same under, Arena::Verdicts::Concurrency::Under.flag(alone)
  end
end
