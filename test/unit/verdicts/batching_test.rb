# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Answers held in batches, on the figures of the capacity app's rounds.
class BatchingTest < Minitest::Test
  cover "Arena::Verdicts::Batching*"

  B = Arena::Verdicts::Batching

  # Thin, one slot, /io?ms=50 at 32 connections, a 3 s round (session 8):
  # 17.3 counted, mean latency 1,624 ms, waiting 840 ms, working 49.8 ms.
  def thin(**over) = B::Figures.new(good_rps: 17.3, latency_mean_us: 1_624_000, waiting_mean_us: 840_000, working_mean_us: 49_800,
    connections: 32, duration_s: 3.0, open_model: false, **over)

  def test_answers_held_while_the_slots_stay_busy_are_batched_with_littles_rate
    v = B.call(thin)
    assert_equal "batched", v.word
    assert_equal "answers reached the client 734.2 ms after the app returned (mean of 1624.0 ms), while the slots stayed busy: " \
      "the server writes them in batches, so a 3.0 s round counts up to ±24% (about 13 answers held at either end); " \
      "Little's law on the loop, 32 connections ÷ 1624.0 ms, reads 19.7 req/s", v.reason
    assert_equal 19.7, B.loop_rps(thin)
    assert_match(/, so a 3\.0 s round counts up to ±24%/, B.call(thin(duration_s: 3.04)).reason, "the round's length to one decimal")
    assert_equal 19.6, B.loop_rps(thin(latency_mean_us: 1_630_000)), "32 ÷ 1.63 s is 19.63: one decimal"
    assert B.call(thin(slots: 1)).reason.end_with?("reads 19.7 req/s; each slot turns every 50.8 ms for 49.8 ms of the app's work: 1.0 ms a request is spent outside the app, by the server itself"),
      B.call(thin(slots: 1)).reason
  end

  def test_the_servers_own_time_needs_every_slot_busy_and_a_turn_longer_than_the_work
    assert_match(/each slot turns every 50\.8 ms .*: 1\.0 ms a request is spent outside the app, by the server itself\z/, B.call(thin(slots: 1)).reason)
    refute_match(/by the server itself/, B.call(thin(slots: 33)).reason, "more slots than connections: not every slot turns")
    assert_match(/by the server itself\z/, B.call(thin(slots: 32)).reason, "as many slots as connections")
    refute_match(/by the server itself/, B.call(thin(slots: 0)).reason)
    refute_match(/by the server itself/, B.call(thin(slots: 1, working_mean_us: 50_800)).reason, "no time beyond the app's")
    assert_match(/by the server itself\z/, B.call(thin(slots: 1, working_mean_us: 50_700)).reason)
    at_20 = {latency_mean_us: 1_600_000, waiting_mean_us: 800_000} # 32 ÷ 1.6 s: 20.0 req/s, a turn of 50.0 ms
    refute_match(/by the server itself/, B.call(thin(slots: 1, working_mean_us: 50_000, **at_20)).reason, "a turn of exactly the work")
    assert_match(/reads 20\.0 req\/s; each slot turns every 100\.0 ms for 49\.8 ms of the app's work: 50\.2 ms a request/,
      B.call(thin(slots: 2, **at_20)).reason, "two slots at 20 req/s: each turns every 2 ÷ 20 s")
    assert_match(/by the server itself\z/, B.call(thin(slots: 1, working_mean_us: 49_999, **at_20)).reason)
  end

  # Puma workers=2 threads=4 on /cpu?ms=10, one core (session 8): its
  # threads waited for the core to write their answers, 129 ms after the app.
  def test_a_busy_core_is_waiting_not_batching
    puma = thin(good_rps: 76.0, latency_mean_us: 416_300, waiting_mean_us: 265_000, working_mean_us: 21_900, duration_s: 1.5)
    assert_equal "batched", B.call(puma).word, "no CPU figure: the hold alone"
    busy = B.call(puma.dup.tap { |f| f.server_cpu_pct = 92.0 }.then { |f| f.tap { f.server_cores = 1 } })
    assert_equal "ok", busy.word
    assert_equal "answers left 129.4 ms after the app while the server used 92% of its cores: waiting for a core, not held", busy.reason
    assert_equal "batched", B.call(thin(server_cpu_pct: 49.0, server_cores: 1)).word, "under half a core: held"
    assert_equal "ok", B.call(thin(server_cpu_pct: 100.0, server_cores: 2)).word, "half of two cores"
    assert_equal "batched", B.call(thin(server_cpu_pct: 99.0, server_cores: 2)).word
  end

  # No core count recorded is one core, and so is a count of 0 (the stall
  # rule reads them alike).
  def test_unknown_or_zero_cores_are_one_core
    assert_equal "answers left 734.2 ms after the app while the server used 60% of its cores: waiting for a core, not held",
      B.call(thin(server_cpu_pct: 60.0, server_cores: nil)).reason
    assert_equal "batched", B.call(thin(server_cpu_pct: 49.0, server_cores: 0)).word
  end

  def test_a_stall_is_not_batching_and_small_holds_are_not
    assert_equal "ok", B.call(thin, stalled: true).word, "a stall idles the slots: its own word"
    puma = thin(good_rps: 157.0, latency_mean_us: 203_500, waiting_mean_us: 152_900, working_mean_us: 50_100)
    assert_equal "ok", B.call(puma).word
    assert_match(/0\.5 ms after the app/, B.call(puma).reason)
    assert_equal "ok", B.call(thin(duration_s: 15.0)).word, "734 ms of a 15 s round: 4.9%, its count holds"
  end

  def test_the_thresholds_at_their_edges
    # held = 1,624,000 - waiting - 49,800: pick waiting for an exact hold.
    at = ->(held, **o) { B.call(thin(waiting_mean_us: 1_624_000 - 49_800 - held, **o)).word }
    assert_equal "batched", at.call(324_800), "20% of the mean latency"
    assert_equal "ok", at.call(324_799)
    small = {latency_mean_us: 60_000, working_mean_us: 10_000}
    assert_equal "batched", B.call(thin(waiting_mean_us: 30_000, duration_s: 0.3, **small)).word, "20 ms, the floor, 6.7% of 0.3 s"
    assert_equal "ok", B.call(thin(waiting_mean_us: 30_001, duration_s: 0.3, **small)).word
    assert_equal "batched", at.call(600_000, duration_s: 12.0), "5% of the round"
    assert_equal "ok", at.call(600_000, duration_s: 12.01)
  end

  def test_what_it_cannot_judge
    assert_equal "cannot judge", B.call(thin(waiting_mean_us: nil)).word
    assert_equal "cannot judge", B.call(thin(working_mean_us: nil)).word
    assert_equal "cannot judge", B.call(thin(good_rps: 0.0)).word
    assert_equal "cannot judge", B.call(thin(latency_mean_us: 0)).word
    assert_equal "cannot judge", B.call(thin(duration_s: 0.0)).word, "a round of no time: no edge to divide by"
    assert_equal "cannot judge", B.call(thin(duration_s: nil)).word
    assert_nil B.loop_rps(thin(open_model: true)), "an open model is not a loop"
    assert_nil B.loop_rps(thin(connections: 0))
    assert_nil B.loop_rps(thin(latency_mean_us: nil))
    refute_match(/Little/, B.call(thin(connections: 0)).reason)
  end

  def test_what_it_cannot_judge_says_why
    assert_equal "no waiting/working means (--queue-time on)", B.call(thin(waiting_mean_us: nil)).reason
    assert_equal "no answers", B.call(thin(latency_mean_us: nil)).reason, "no latency at all"
    assert_equal "no answers", B.call(thin(good_rps: nil)).reason
    assert_equal "no counted time", B.call(thin(duration_s: 0.0)).reason
    assert_nil B.loop_rps(thin(connections: nil)), "connections not known"
  end

  def test_without_littles_rate_there_is_no_turn_of_a_slot
    open = B.call(thin(open_model: true, slots: 1))
    assert_equal "batched", open.word, "an open model's answers are held all the same"
    refute_match(/Little|by the server itself/, open.reason, "no loop: no rate to turn a slot by")
    refute_match(/by the server itself/, B.call(thin(connections: 0, slots: 1)).reason)
  end

  # The flag Verdicts::Flags reads: the verdict when batched, nil otherwise
  # (not batched, or the same figures stalled).
  def test_the_flag_is_the_verdict_only_when_batched
    f = Struct.new(:batching, :stalled?)
    v = B.flag(f.new(thin, false))
    assert_equal ["batched", B.call(thin).reason], [v.word, v.reason]
    assert_nil B.flag(f.new(thin, true)), "a stall is not batching"
    assert_nil B.flag(f.new(thin(duration_s: 15.0), false)), "a hold its round outweighs: ok, no flag"
  end
end

# The batched row in Findings: one line per row, with the first run's words.
class BatchingReportTest < Minitest::Test
  def test_a_batched_row_is_explained_once_in_findings
    document = Arena::Report::Source.open(File.expand_path("../../fixtures/results/steady", __dir__)).view
    puma = "puma:workers=2,threads=2,preload=false"
    marked = document.measurements.map do |m|
      next m unless m.server == puma && m.measured?
      m.with(summary: Arena::Results::Summary.new(**m.summary.to_h, flags: [*m.summary.flags, "batched"].freeze,
        batched: "answers reached the client 734.2 ms after the app returned", loop_rps: 19.7).freeze)
    end
    lines = Arena::Report::Findings.lines(document.with(measurements: marked.freeze)).grep(/batched/)
    assert_includes lines, "#{puma} server steady keep-alive: batched (2 of 2 runs): answers reached the client 734.2 ms after the app returned"
    assert_equal 2, lines.size, "one line per row"
  end
end
