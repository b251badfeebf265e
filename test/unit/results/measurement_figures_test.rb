# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The figures every verdict reads, parsed from engine documents whose truth
# is known: goodput (from the good section, or completed less failed checks),
# the error rate's denominator, the percentiles a sample size supports, and
# the summary's flags at their boundaries.
class ResultsFiguresTest < Minitest::Test
  cover "Arena::Results::Measurement*"
  cover "Arena::Results::LoadFigures*"
  cover "Arena::Results::Summary*"
  cover "Arena::Results::Latency*"

  R = Arena::Results

  def doc(completed: 1000, rps: 500.0, errors: nil, kinds: {}, good: nil, latency: {"count" => 1000, "p50" => 900, "p99" => 5000}, **more)
    h = {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2, "throughput_rps" => rps,
         "requests" => {"completed" => completed, "sent" => completed + 5}, "latency_us" => latency}
    h["errors"] = {"total" => errors, **kinds}.compact if errors || kinds.any?
    h["good"] = good if good
    h.merge(more.transform_keys(&:to_s))
  end

  def load(**kw) = R::LoadFigures.from_h(doc(**kw))

  def test_latency_and_the_samples_a_percentile_needs
    l = R::Latency.from_engine({"count" => "99", "min" => 1, "p50" => 2, "p75" => 3, "p90" => 4, "p99" => 5, "p999" => 6,
      "p9999" => 7, "max" => 8, "mean" => 2.5, "stdev" => 0.5})
    assert l.frozen?
    assert_equal [99, 1, 2, 3, 4, 5, 6, 7, 8, 2.5, 0.5], l.to_a
    refute l.supported?(:p99)
    assert_nil l.at(:p99)
    assert_equal 4, l.at(:p90)
    assert l.supported?(:p90)
    hundred = l.dup.tap { |x| x.n = 100 }
    assert_equal 5, hundred.at(:p99)
    assert_equal 0, R::Latency.from_engine(nil).n
    assert_equal 0, R::Latency.from_engine("x").n
    assert_equal 0, R::Latency.from_engine([1]).n
    assert_equal 0, R::Latency.from_engine({}).n, "no count: none"
    refute R::Latency.new(n: 0).supported?(:max), "a name without a minimum needs one sample"
    assert R::Latency.new(n: 1).supported?(:max)
    refute R::Latency.new(n: 1).supported?(:p50)
  end

  def test_the_engine_document_is_checked_at_the_boundary
    assert_equal "load engine output is not a JSON object", assert_raises(Arena::Error) { R::LoadFigures.from_engine([]) }.message
    assert_equal 'load engine schema "arena-load/9" is not one this Arena reads (arena-load/1, arena-load/2)',
      assert_raises(Arena::Error) { R::LoadFigures.from_engine(doc.merge("schema" => "arena-load/9")) }.message
    assert_equal 1000, R::LoadFigures.from_engine(doc).completed
    assert_equal 1000, R::LoadFigures.from_engine(doc.merge("schema" => "arena-load/1")).completed
  end

  def test_goodput_from_the_good_section
    l = load(completed: 1000, rps: 500.0, good: {"completed" => 600, "rps" => 300.0, "latency_us" => {"count" => 600, "p99" => 7000}},
      kinds: {"unexpected_status" => 400}, errors: 0)
    assert_equal [600, 300.0], [l.good, l.good_rps]
    assert_equal 7000, l.latency.p99, "the good responses' latency"
    assert_equal 5000, l.latency_all.p99
    assert l.frozen?
  end

  # The first schema has no good section: completed less the responses that
  # failed the checks, and goodput in proportion.
  def test_goodput_without_a_good_section
    l = load(completed: 1000, rps: 500.0, kinds: {"unexpected_status" => 150, "body_mismatch" => 50, "timeout" => 7}, errors: 207)
    assert_equal 800, l.good
    assert_equal 400.0, l.good_rps
    assert_equal l.latency_all, l.latency
    assert_equal 0, load(completed: 10, kinds: {"unexpected_status" => 30}).good, "never below 0"
    assert_equal 0.0, load(completed: 0, rps: 0.0).good_rps
    assert_equal 1000, load(completed: 1000).good
  end

  def test_errors_and_their_share_of_every_request_that_ended
    l = load(completed: 1000, kinds: {"timeout" => 2, "connect" => 1, "read" => 0})
    assert_equal 3, l.errors, "no total: the kinds summed"
    assert_equal({"timeout" => 2, "connect" => 1, "read" => 0}, l.error_kinds)
    assert_equal({"timeout" => 2, "connect" => 1}, l.nonzero_error_kinds)
    assert_equal 0.299, l.error_pct # 3 / (1000 + 3), to 3 places
    assert_equal 5, load(errors: "5", kinds: {"timeout" => 2}).errors, "the total, when given"
    # Nothing ended, 5 sent: a hung server's unanswered requests are failed, not 0%.
    assert_equal 100.0, load(completed: 0).error_pct
    assert_equal 0.0, load(completed: 0, requests: {"completed" => 0, "sent" => 0}).error_pct, "nothing sent, nothing failed"
    assert_equal 100.0, load(completed: 0, errors: 4).error_pct
    # Failed checks are completed, not good, and not connection errors: 1 of 3 ended requests is an error.
    assert_equal 33.333, load(completed: 3, kinds: {"unexpected_status" => 1}, errors: 1).error_pct
  end

  def test_the_rest_of_the_document
    l = load(open: {"late" => 4, "dropped" => 2}, connections: {"resent" => 1, "requested" => 16, "opened" => 16},
      status: {"200" => 1000}, timeline_ms: 250, warmup_s: 0.5, bytes_received: "2048", model: "open")
    assert_equal [2.0, 1005, 500.0, 4, 2, 1], [l.duration_s, l.sent, l.rps, l.late, l.dropped, l.resent]
    assert_equal({"200" => 1000}, l.status)
    assert_equal [0.25, 0.5, 2048, 16], [l.interval_s, l.warmup_s, l.bytes_received, l.connections_requested]
    assert l.open?
    refute load.open?
    assert_equal [1.0, 0.0, 0, 0], [load.interval_s, load.warmup_s, load.bytes_received, load.connections_requested]
    assert_equal({}, load.status)
    assert_nil load.requests
    assert_nil load.stages
    assert_equal [], load.timeline
    t = load(timeline: [{"t" => 1, "completed" => 10, "good" => 9, "errors" => 1}]).timeline
    assert_equal [1.0, 10, 9, 1], t.first.to_a.first(4)
    assert_nil load.good_histogram
    assert_nil load(good: {"completed" => 1, "latency_histogram" => {"bogus" => true}}).good_histogram
  end

  def test_a_server_that_closes_kept_alive_connections
    assert load(completed: 100, connections: {"opened" => 50}).server_closed?, "a new connection every two responses"
    refute load(completed: 100, connections: {"opened" => 49}).server_closed?
    refute load(completed: 100, connections: {"opened" => 100}, keep_alive: false).server_closed?, "closing was asked"
    assert load(completed: 100, connections: {"opened" => 100}, keep_alive: nil).server_closed?, "older documents: kept alive"
    refute load(completed: 0, connections: {"opened" => 5}).server_closed?
    # Thin with one slot on a 50 ms request, 32 connections, a 3 s round: 32
    # opened once and kept, 53 responses. The first 32 opens are the run's own,
    # not the server's closing (it read "thin (no keep-alive)").
    refute load(completed: 53, connections: {"requested" => 32, "opened" => 32}).server_closed?, "only the connections asked for"
    refute load(completed: 53, connections: {"requested" => 32, "opened" => 58}).server_closed?, "26 reopened for 53 responses"
    assert load(completed: 53, connections: {"requested" => 32, "opened" => 59}).server_closed?, "27 reopened: one every two responses"
  end

  def test_stall_figures_are_the_loads_own
    l = load(latency: {"count" => 10, "p50" => 1, "p75" => 2, "p90" => 3, "p99" => 4, "mean" => 1.5}, connections: {"requested" => 8}, model: "open",
      keep_alive: false)
    split = R::QueueSplit.new(n: 9, queue_p50_us: 5, work_p50_us: 6, work_mean_us: 9)
    f = l.stall_figures(server_cpu_pct: 12.0, server_cores: 2, queue: split, slots: 4, service_us: 7)
    assert_equal [1, 1.5, 500.0, 8, true, false, 12.0, 2, 5, 6, 4, 7, nil, nil, nil, false], f.to_a, "no waiting mean: no means"
    with_means = l.stall_figures(server_cpu_pct: 12.0, server_cores: 2, queue: split.to_h.merge(queue_mean_us: 8).then { |h| R::QueueSplit.new(**h) })
    assert_equal [8, 9], [with_means.waiting_mean_us, with_means.working_mean_us]
    assert_equal [1, 1.5, 500.0, 8, true, false, 12.0, 2, nil, nil, nil, nil, nil, nil, nil, false], l.stall_figures(server_cpu_pct: 12.0, server_cores: 2).to_a
    assert l.stall_figures(server_cpu_pct: 12.0, server_cores: 2, noisy: true).noisy
    c = l.concurrency_figures(queue: split, slots: 4, server_cpu_pct: 12.0, server_cores: 2)
    assert_equal [500.0, 9, 6, 5, 4, 8, 12.0, 2, nil, nil], c.to_a
    spread = l.concurrency_figures(queue: split, slots: 4, server_cpu_pct: 12.0, server_cores: 2, spread: [29, 3], processes: 2)
    assert_equal [[29, 3], 2], [spread.spread, spread.processes]
    # A server that closed the connections kept no spread: each request came on a new one.
    closing = load(completed: 100, connections: {"opened" => 50})
    assert_nil closing.concurrency_figures(queue: split, slots: 4, server_cpu_pct: nil, server_cores: nil, spread: [1, 1], processes: 2).spread
    assert_nil l.concurrency_figures(queue: nil, slots: 4, server_cpu_pct: 12.0, server_cores: 2).rps, "no split, no rate to weigh"
  end

  # Agoo workers=2 threads=4 on /io?ms=50 at 32 connections: 19.7 req/s x
  # 50 ms = 1 request in the app at a time, of 8 declared, while requests
  # waited 1.5 s for it.
  def test_busy_slots_beside_the_declared_ones_and_the_under_concurrent_flag
    agoo = load(completed: 40, rps: 19.7, latency: {"count" => 40, "p50" => 1_600_000, "mean" => 1_600_000},
      connections: {"requested" => 32, "opened" => 32})
    split = R::QueueSplit.new(n: 40, queue_p50_us: 1_550_000, work_p50_us: 50_100, work_mean_us: 50_300)
    s = R::Summary.of(agoo, queue: split, slots: 8, server_cpu_pct: 3.0, server_cores: 1)
    assert_includes s.flags, "under-concurrent"
    assert_equal [0.99, 8], [s.busy_slots, s.declared_slots]
    assert_equal "0.99 of 8 slots busy (19.7 req/s x 50.3 ms working; 8 declared, 32 connections), while requests waited " \
      "1550.0 ms p50 before the app and worked 50.1 ms: it ran fewer requests at once than its settings declare", s.concurrency
    record = s.to_record
    assert_equal [0.99, 8], record.values_at("busy_slots", "declared_slots")
    assert_equal s, R::Summary.from_h(JSON.parse(JSON.generate(record)))
    full = R::Summary.of(agoo, queue: split, slots: 1, server_cpu_pct: 3.0, server_cores: 1)
    refute_includes full.flags, "under-concurrent"
    assert_nil full.concurrency
    refute full.to_record.key?("concurrency")
    # Without the split nothing is known of the busy slots: neither is written.
    bare = R::Summary.of(agoo, slots: 8).to_record
    refute bare.key?("busy_slots")
    refute bare.key?("declared_slots")
  end

  # Iodine workers=2 threads=4 on /io?ms=50 at 32 connections, whose kernel
  # handed its workers 29 and 3 (its master none): 7 of 8 slots reachable,
  # 138.5 req/s read. Uneven, said with the spread, and not under-concurrent.
  def test_an_uneven_spread_is_flagged_with_the_slots_it_reached
    iodine = load(completed: 277, rps: 138.5, latency: {"count" => 277, "p50" => 352_000, "mean" => 231_000},
      connections: {"requested" => 32, "opened" => 32})
    split = R::QueueSplit.new(n: 277, queue_p50_us: 305_000, work_p50_us: 49_500, work_mean_us: 49_500)
    s = R::Summary.of(iodine, queue: split, slots: 8, server_cpu_pct: 3.0, server_cores: 1, spread: {100 => 0, 101 => 29, 102 => 3}, processes: 2)
    assert_equal ["uneven"], s.flags
    assert_equal [6.86, 8, 7], [s.busy_slots, s.declared_slots, s.reachable_slots]
    assert_equal "connections spread unevenly over 2 workers (29 and 3 of 32): 7 of 8 slots reachable, so at most 141.4 req/s " \
      "at 49.5 ms a request", s.uneven
    assert_nil s.concurrency
    record = s.to_record
    assert_equal [6.86, 8, 7], record.values_at("busy_slots", "declared_slots", "reachable_slots")
    assert_equal s, R::Summary.from_h(JSON.parse(JSON.generate(record)))
    even = R::Summary.of(iodine, queue: split, slots: 8, server_cpu_pct: 3.0, server_cores: 1, spread: {101 => 16, 102 => 16}, processes: 2)
    assert_equal [[], 8, nil], [even.flags, even.reachable_slots, even.uneven]
    assert_equal 8, even.to_record["reachable_slots"]
    refute even.to_record.key?("uneven")
    # Not read: neither is written.
    unread = R::Summary.of(iodine, queue: split, slots: 8, server_cpu_pct: 3.0, server_cores: 1).to_record
    refute unread.key?("reachable_slots")
    refute unread.key?("uneven")
  end

  # A 40 ms delayed-ACK shape: the stall rule says "stalled".
  def stalled_load = load(completed: 4000, rps: 400.0, latency: {"count" => 4000, "p50" => 41_000, "p75" => 42_000, "p90" => 43_000, "p99" => 45_000, "mean" => 41_000},
    connections: {"requested" => 16, "opened" => 16})

  # The app's split of it: 0.8 ms of 41 explained.
  STALL_SPLIT = R::QueueSplit.new(n: 4000, queue_p50_us: 300, work_p50_us: 500).freeze

  def test_summary_flags_at_their_boundaries
    clean = R::Summary.of(load(completed: 1000, errors: 10, good: {"completed" => 990, "rps" => 495.123, "latency_us" => {"count" => 990, "p50" => 900, "p99" => 5000}}), loader_cpu_pct: 85.0, server_cpu_pct: 50.0, server_cores: 1)
    assert_equal [], clean.flags, "1.0% errors and a loader at 85% are within the limits"
    assert clean.flags.frozen?
    assert clean.frozen?
    assert_equal [495.12, 1.0, 900, 5000, 990, 85.0], [clean.good_rps, clean.error_pct, clean.p50_us, clean.p99_us, clean.samples, clean.loader_cpu_pct]
    assert_nil clean.stall
    assert_nil clean.pool
    refute clean.erroneous?
    over = R::Summary.of(load(completed: 1000, errors: 11, good: {"completed" => 989, "rps" => 1.0, "latency_us" => {"count" => 989}}), loader_cpu_pct: 85.1, settled: false, settled_s: 30.0, noisy: true)
    assert_equal %w[noisy errors loader-bound did-not-settle], over.flags
    assert over.erroneous?
    assert over.flagged?("loader-bound")
    refute over.flagged?("stalled")
    assert_equal 30.0, over.settled_s
    few = R::Summary.of(load(latency: {"count" => 99, "p50" => 1, "p99" => 2}, connections: {"opened" => 1000}, completed: 1000))
    assert_equal %w[few-samples server-closed], few.flags
  end

  # Thin with one slot, a 3 s round: its answers held 734 ms after the app.
  def test_answers_held_in_batches_are_flagged_with_littles_rate
    thin = load(completed: 52, rps: 17.3, duration_s: 3.0, connections: {"requested" => 32, "opened" => 32},
      latency: {"count" => 52, "p50" => 1_620_000, "p99" => 3_100_000, "mean" => 1_624_000})
    split = R::QueueSplit.new(n: 16, queue_p50_us: 826_000, work_p50_us: 49_500, work_mean_us: 49_800, queue_mean_us: 840_000)
    s = R::Summary.of(thin, queue: split, slots: 1)
    assert_equal %w[few-samples batched], s.flags
    assert_equal 19.7, s.loop_rps
    assert_match(/\Aanswers reached the client 734\.2 ms after the app returned .* reads 19\.7 req\/s; each slot turns every 50\.8 ms .* by the server itself\z/, s.batched)
    assert_equal [s.batched, 19.7], s.to_record.values_at("batched", "loop_rps")
    plain = R::Summary.of(thin)
    assert_nil plain.batched, "no split: nothing to judge"
    assert_equal 19.7, plain.loop_rps, "Little's law needs no split"
    refute plain.to_record.key?("batched")
    assert_nil R::Summary.of(load(model: "open")).loop_rps
    refute R::Summary.of(load(model: "open")).to_record.key?("loop_rps")
  end

  # A hung server: the engine ended no request in the whole run (Falcon on a
  # Rails app sharing one connection across fibers was read "0 good, 0 errors").
  def test_a_measurement_with_no_response_and_no_error_is_unanswered
    hung = R::Summary.of(load(completed: 0, rps: 0.0, latency: {"count" => 0}))
    assert_equal %w[unanswered few-samples], hung.flags
    assert hung.erroneous?, "an unanswered measurement is never a served level or a pick"
    refused = R::Summary.of(load(completed: 0, rps: 0.0, errors: 40, kinds: {"connect" => 40}, latency: {"count" => 0}))
    assert_equal %w[errors few-samples], refused.flags, "errors ended the requests: they are said as errors"
    one = R::Summary.of(load(completed: 1, rps: 0.5, latency: {"count" => 1, "p50" => 900}))
    refute_includes one.flags, "unanswered"
    refute one.erroneous?
    refute R::LoadFigures.from_h(doc(completed: 0, duration_s: 0)).unanswered?, "a run that lasted nothing asked nothing"
  end

  Pool = Struct.new(:word, :reason)

  def test_summary_flags_from_the_envelope_the_pool_and_the_stall_rule
    oom = Arena::Results::EnvelopeFigures.new(oom_kills: 1)
    pool = Pool.new("pool-exhausted", "5 threads, a pool of 2")
    s = R::Summary.of(stalled_load, envelope: oom, pool: pool, server_cpu_pct: 10.0, server_cores: 1, queue: STALL_SPLIT)
    assert_equal %w[oom-killed pool-exhausted stalled], s.flags
    assert_equal "5 threads, a pool of 2", s.pool
    assert_match(/\Ap50 41\.0 ms = waiting 0\.3 ms \+ working 0\.5 ms \+ 40\.2 ms unexplained/, s.stall)
    assert_includes R::Summary.of(stalled_load, server_cpu_pct: 60.0, server_cores: 2, queue: STALL_SPLIT).flags, "stalled", "60% of two cores is under half of them"
    refute_includes R::Summary.of(stalled_load, server_cpu_pct: 60.0, server_cores: 1, queue: STALL_SPLIT).flags, "stalled"
    # Without the split, the unloaded service time and the slots: 16 slots of 1 ms, 400 req/s: 2.5% busy, 40 ms more.
    assert_includes R::Summary.of(stalled_load, server_cpu_pct: 10.0, server_cores: 1, slots: 16, service_us: 1_000).flags, "stalled"
    refute_includes R::Summary.of(stalled_load, server_cpu_pct: 10.0, server_cores: 1).flags, "stalled", "nothing to compare with"
    calm = R::Summary.of(stalled_load, envelope: Arena::Results::EnvelopeFigures.new(oom_kills: 0), pool: Pool.new("pool ok", "fine"),
      server_cpu_pct: 90.0, server_cores: 1, queue: STALL_SPLIT)
    assert_equal [], calm.flags
    assert_nil calm.pool
    assert_nil calm.stall
  end

  def test_summary_records_round_trip
    s = R::Summary.of(stalled_load, server_cpu_pct: 10.0, server_cores: 1, settled_s: 0.5)
    back = R::Summary.from_h(JSON.parse(JSON.generate(s.to_record)))
    assert_equal s.to_h, back.to_h
    assert back.frozen?
    assert back.flags.frozen?
    plain = R::Summary.of(load).to_record
    refute plain.key?("stall"), "no stall, no key"
    assert plain.key?("pool")
    assert_equal "good_rps", plain.keys.first
    assert_equal [], R::Summary.from_h({"good_rps" => 1.0, "unknown" => 2}).flags
  end

  def measurement(**h) = R::Measurement.from_h({"server" => "puma", "workload" => "server", "scenario" => "steady", "variant" => "keep-alive",
    "load" => doc, **h.transform_keys(&:to_s)})

  def test_a_measurement_from_its_record
    m = measurement(repeat: 2, engine_argv: ["-c", "16", "-R", "250.5", "-d", "x"], kind: "run")
    assert m.frozen?
    assert m.measured?
    refute m.summary?
    assert_equal ["puma", "server", "steady", "keep-alive", 2, "run"], [m.server, m.workload, m.scenario, m.variant, m.repeat, m.kind]
    assert_equal "steady keep-alive", m.label
    assert_equal 500.0, m.good_rps, "no summary written: made from the load"
    assert_equal [], m.flags
    refute m.noisy?
    assert_equal 16, m.settings.connections, "the settings it ran with, as far as the recorded argv tells"
    assert m.settings.frozen?
    assert_equal({connections: 16}, m.settings.to_h, "only the connections are read back")
    assert_nil measurement(engine_argv: ["-c", "x"]).settings.connections, "not a number"
    assert_nil measurement(engine_argv: ["-d", "1"]).settings.connections
    assert_nil measurement(engine_argv: ["-d", "1", "-c"]).settings.connections, "a flag with no value after it"
    assert_nil measurement(engine_argv: nil).settings, "no argv (a summary record): no settings"
    assert_equal ["-c", "16", "-R", "250.5", "-d", "x"], m.to_record["engine_argv"], "the file keeps the argv"
    refute m.to_record.key?("settings"), "and no settings of its own: results.json as before"
    assert_equal({}, m.extra)
    assert_nil m.warmup_s
    assert_nil m.rerun
  end

  def test_a_summary_record_and_older_top_level_figures
    m = R::Measurement.from_h({"server" => "puma", "scenario" => "rate", "kind" => "summary", "knee_rps" => 900,
      "extra" => {"curve" => []}, "summary" => {"good_rps" => 12.5, "flags" => ["noisy"]}, "warmup_s" => 1, "warmup" => {"steady" => true},
      "rerun" => false})
    assert m.summary?
    refute m.measured?
    assert_equal({"curve" => [], "knee_rps" => 900}, m.extra)
    assert m.extra.frozen?
    assert_equal 12.5, m.good_rps
    assert m.noisy?
    assert_equal 1.0, m.warmup_s
    assert_nil m.rerun
    assert_equal "rate", m.label
    bare = R::Measurement.from_h({"server" => "puma", "load" => "garbage", "extra" => "x"})
    assert_nil bare.load
    assert_nil bare.summary
    assert_equal 0.0, bare.good_rps
    assert_equal [], bare.flags
    assert_equal({}, bare.extra)
  end

  def test_a_measurement_round_trips_through_its_record
    m = measurement(repeat: 1, extra: {"slo_ms" => 100}, warmup_s: 0.5, warmup: {"steady" => false, "slices_rps" => [1, 2]}, rerun: true,
      probes: {"pss_peak_kb" => 100, "rss_peak_kb" => 300, "cpu_pct_mean" => 50.0, "samples" => []})
    record = m.to_record
    assert_equal doc, record["load"]
    refute record.key?("envelope"), "absent parts are left out"
    again = R::Measurement.from_h(JSON.parse(JSON.generate(record)))
    assert_equal m.to_record, again.to_record
    assert_equal m.summary.to_h, again.summary.to_h
    assert_equal true, again.rerun
    assert_nil measurement.to_record["extra"], "an empty extra is not written"
    changed = m.with(repeat: 3)
    assert_equal [3, 1], [changed.repeat, m.repeat]
    assert changed.frozen?
  end

  # Every part a results file holds, as the file holds it: read and written
  # back, key for key (the file is the interface other tools read).
  FULL = {"server" => "puma:workers=2", "workload" => "server", "scenario" => "steady", "variant" => "keep-alive", "kind" => "run", "repeat" => 2,
          "engine_argv" => ["-c", "16"],
          "load" => {"schema" => "arena-load/2", "throughput_rps" => 500.0, "duration_s" => 2.0, "requests" => {"completed" => 1000},
                     "latency_us" => {"count" => 1000, "p50" => 900, "p99" => 5000}},
          "probes" => {"pss_peak_kb" => 100, "pss_mean_kb" => 90, "rss_peak_kb" => 300, "uss_peak_kb" => 80, "cpu_pct_mean" => 50.0,
                       "procs_max" => 3, "procs_min" => 3, "samples" => [{"t" => 0.5, "procs" => 3, "pss_kb" => 100}]},
          "front_probes" => {"pss_peak_kb" => 10, "pss_mean_kb" => 9, "rss_peak_kb" => 30, "uss_peak_kb" => 8, "cpu_pct_mean" => 5.0,
                             "procs_max" => 1, "procs_min" => 1, "samples" => []},
          "loader" => {"pss_peak_kb" => 20, "pss_mean_kb" => 19, "rss_peak_kb" => 40, "uss_peak_kb" => 18, "cpu_pct_mean" => 70.0,
                       "procs_max" => 1, "procs_min" => 1, "samples" => []},
          "envelope" => {"cpus" => "0", "memory_bytes" => 268_435_456, "periods" => 100, "throttled_periods" => 10, "throttled_pct" => 10.0,
                         "throttled_s" => 0.5, "oom_kills" => 0, "oom_at_s" => []},
          "database" => {"kind" => "postgres", "connections" => 5, "queries" => 100, "requests" => 50},
          "summary" => {"good_rps" => 500.0, "error_pct" => 0.0, "p50_us" => nil, "p99_us" => nil, "samples" => nil, "settled_s" => nil,
                        "loader_cpu_pct" => nil, "flags" => [], "pool" => nil},
          "extra" => {"slo_ms" => 100}, "warmup_s" => 0.75, "warmup" => {"steady" => true, "slices_rps" => [480.0, 500.0]},
          "noise" => {"steal_pct" => 0.1, "other_cpu_pct" => 5.0, "load_before" => 1.5, "verdict" => "quiet"},
          "rerun" => true,
          "queue" => {"n" => 10, "queue_n" => 9, "queue_p50_us" => 100, "queue_p99_us" => 300, "work_p50_us" => 800, "work_p99_us" => 2000}}.freeze

  def test_every_part_of_a_record_is_read_and_written_back
    m = R::Measurement.from_h(FULL)
    assert_equal FULL, m.to_record
    assert_equal FULL.keys, m.to_record.keys
    assert_equal [R::Memory, R::Memory, R::Memory, R::EnvelopeFigures, R::DatabaseFigures, R::NoiseRecord, R::WarmupRecord, R::QueueSplit, R::Summary],
      [m.probes, m.front_probes, m.loader, m.envelope, m.database, m.noise, m.warmup, m.queue, m.summary].map(&:class)
    assert_equal [10, 20, 268_435_456, "postgres", 0.75, 9], [m.front_probes.pss_peak_kb, m.loader.pss_peak_kb, m.envelope.memory_bytes, m.database.kind, m.warmup_s, m.queue.queue_n]
    assert_equal ["-c", "16"], m.engine_argv
    assert_equal 500.0, m.load.rps
    bare = R::Measurement.from_h({"server" => "puma", "load" => FULL["load"]})
    assert_equal({"server" => "puma", "load" => FULL["load"], "summary" => R::Summary.of(bare.load).to_record}, bare.to_record, "absent parts are not written")
    assert_equal [nil] * 8, [bare.probes, bare.front_probes, bare.loader, bare.envelope, bare.database, bare.noise, bare.warmup, bare.queue]
  end

  # Older or foreign documents: numbers as strings, sections of the wrong
  # kind, a mix's requests and a profile's stages read into their records.
  def test_documents_with_strings_and_odd_sections
    l = R::LoadFigures.from_h({"schema" => "arena-load/1", "duration_s" => "2", "throughput_rps" => "500", "errors" => 5, "good" => "x",
      "requests" => {"completed" => "1000", "sent" => "1005"}, "latency_us" => {"count" => 1000},
      "requests_mix" => [{"name" => "a", "weight_share" => 0.5, "completed" => 10, "good" => 9, "bad" => 1, "latency_us" => {"count" => 9}}],
      "stages" => [{"from_rps" => 10, "to_rps" => 20, "start_s" => 0, "duration_s" => 5, "asked" => 75, "sent" => 75, "completed" => 70, "good" => 70}]})
    assert_equal ["arena-load/1", 2.0, 500.0, 1000, 1005], [l.schema, l.duration_s, l.rps, l.completed, l.sent]
    assert_equal [0, {}, 1000], [l.errors, l.error_kinds, l.good], "errors that are not a mapping: none counted"
    assert l.error_kinds.frozen?
    assert l.status.frozen?
    assert_equal [["a", 0.5, 10, 9, 1, 9]], l.requests.map { |q| [q.name, q.weight_share, q.completed, q.good, q.bad, q.latency.n] }
    assert_equal [[10.0, 20.0, 5.0, 70]], l.stages.map { |st| [st.from_rps, st.to_rps, st.seconds, st.good] }
    g = R::LoadFigures.from_h({"requests" => {"completed" => 10}, "good" => {"completed" => "7", "rps" => "3.5"}, "errors" => {"total" => 1, "timeout" => "1"}})
    assert_equal [7, 3.5, {"timeout" => 1}], [g.good, g.good_rps, g.error_kinds]
    assert_nil g.schema
  end
end
