# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Issue 45: Agoo at its default poll_timeout (0.1 s) on the built-in app's
# /server read 1,674 req/s at 10% CPU, p99 101.8 ms in every round, waiting
# p99 98.9 ms, and its row said nothing. The flags a measurement carries
# (Results::Summary.of) must say "stalled" there, by the rule on time that
# neither queueing nor work explains, and not for the same tail with a busy CPU.
class AgooStallFlagTest < Minitest::Test
  cover "Arena::Verdicts::TailStall*"

  R = Arena::Results

  # Little's law on 32 connections: mean 32 / 1,674 = 19.1 ms.
  def agoo_load
    R::LoadFigures.from_h({"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0, "throughput_rps" => 1674.0,
      "connections" => {"requested" => 32, "opened" => 32}, "requests" => {"sent" => 3380, "completed" => 3348},
      "latency_us" => {"count" => 3348, "p50" => 180, "p99" => 101_800, "mean" => 19_100, "max" => 103_000},
      "good" => {"completed" => 3348, "rps" => 1674.0,
                 "latency_us" => {"count" => 3348, "p50" => 180, "p99" => 101_800, "mean" => 19_100, "max" => 103_000}}})
  end

  def agoo_queue
    R::QueueSplit.new(n: 400, queue_n: 400, queue_p50_us: 120, queue_p99_us: 98_900, work_p50_us: 20, work_p99_us: 60,
      work_mean_us: 25, queue_mean_us: 18_700).freeze
  end

  def summary(server_cpu_pct: 10.0)
    R::Summary.of(agoo_load, server_cpu_pct: server_cpu_pct, server_cores: 2, queue: agoo_queue, slots: 8, service_us: 200)
  end

  def test_agoos_100_ms_poll_is_flagged_stalled_with_its_cause
    s = summary
    assert_includes s.flags, "stalled"
    assert_match(/99\.9 ms unexplained .*100 ms poll interval or timer/, s.stall.to_s)
  end

  def test_the_same_tail_on_a_busy_cpu_is_not_a_stall
    refute_includes summary(server_cpu_pct: 150.0).flags, "stalled"
  end

  def flags_figures(queue: agoo_queue, load: agoo_load)
    Arena::Verdicts::Flags::Figures.new(load: load, settled: true, server_cpu_pct: 10.0, server_cores: 2, queue: queue, slots: 8,
      service_us: 200)
  end

  # The flag reads the measurement's p99, its split and its slots; without
  # a split it cannot judge, and flags nothing.
  def test_the_flag_reads_the_measurements_figures
    v = Arena::Verdicts::TailStall.flag(flags_figures)
    assert_equal "stalled", v.word
    assert v.reason.start_with?("p99 101.8 ms: working p99 0.1 ms and at most 1.9 ms queueing (31 requests ahead on one slot)"), v.reason
    assert_match(/while 1% of 8 slots busy and 5% of its cores; likely a 100 ms poll/, v.reason)
    assert_nil Arena::Verdicts::TailStall.flag(flags_figures(queue: nil))
    open = R::LoadFigures.from_h(agoo_load.raw.merge("model" => "open"))
    assert_nil Arena::Verdicts::TailStall.flag(flags_figures(load: open)), "an open model idles by design"
    assert Arena::Verdicts::TailStall.figures(agoo_load, agoo_queue, slots: 8, server_cpu_pct: 10.0, server_cores: 2).frozen?
  end

  # WEBrick's delayed ACK shows in its mean: that rule says "stalled", with
  # its reason, and the tail rule adds no second word.
  def test_a_stall_the_mean_shows_is_said_once_with_the_means_reason
    webrick = R::LoadFigures.from_h({"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0, "throughput_rps" => 355.0,
      "connections" => {"requested" => 16, "opened" => 16}, "requests" => {"sent" => 726, "completed" => 710},
      "good" => {"completed" => 710, "rps" => 355.0,
                 "latency_us" => {"count" => 710, "p50" => 44_000, "p99" => 48_000, "mean" => 44_200, "max" => 49_000}}})
    queue = R::QueueSplit.new(n: 400, queue_n: 400, queue_p50_us: 600, queue_p99_us: 900, work_p50_us: 30, work_p99_us: 90,
      work_mean_us: 30, queue_mean_us: 600).freeze
    s = R::Summary.of(webrick, server_cpu_pct: 14.0, server_cores: 1, queue: queue, service_us: 300)
    assert_equal 1, s.flags.count("stalled"), s.flags.inspect
    assert s.stall.start_with?("mean 44.2 ms = waiting 0.6 ms + working 0.0 ms + 43.6 ms unexplained"), s.stall
    assert_nil Arena::Verdicts::TailStall.flag(flags_figures(load: webrick, queue: queue))
  end
end
