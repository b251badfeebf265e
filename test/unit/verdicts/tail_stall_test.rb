# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The stall rule at the p99 on synthetic figures of known truth: a tail that
# waits out a timer while the slots and the CPU idle is "stalled", named by
# its length; the same tail from busy slots, a busy CPU or long work is not.
class TailStallTest < Minitest::Test
  cover "Arena::Verdicts::TailStall*"

  Rule = Arena::Verdicts::TailStall

  # Agoo workers=2,threads=4,poll_timeout=0.1 on the built-in app's /server
  # (issue 45): 1,674 req/s at 10% CPU of 2 cores, p99 101.8 ms in every
  # round, waiting p99 98.9 ms, the app working tens of microseconds.
  AGOO = {p99_us: 101_800, working_p99_us: 60, working_mean_us: 25, good_rps: 1674.0,
          connections: 32, slots: 8, server_cpu_pct: 10.0, server_cores: 2, open_model: false, split_n: 400}.freeze

  def verdict(**changes) = Rule.verdict(Rule::Figures.new(**AGOO.merge(changes)).freeze)

  def test_a_tail_that_waits_out_a_poll_while_everything_idles_is_a_stall_named_by_its_length
    v = verdict
    assert_equal "stalled", v.word
    assert_equal "p99 101.8 ms: working p99 0.1 ms and at most 1.9 ms queueing (31 requests ahead on one slot) explain " \
      "1.9 ms, 99.9 ms unexplained while 1% of 8 slots busy and 5% of its cores; likely a 100 ms poll interval or timer " \
      "in the server (a missed wake-up waits out the poll timeout); lowering the server's poll or timer setting moves " \
      "the delay if this is the cause", v.reason
  end

  # Its poll at 0.01 s: the p99 falls under the 20 ms floor.
  def test_a_short_tail_is_not_a_stall
    v = verdict(p99_us: 11_500)
    assert_equal "not stalled", v.word
    assert_match(/9\.6 ms unexplained: work and queueing, not a stall\z/, v.reason)
    # The floor is 20 ms or a fifth of the p99, whichever is more.
    assert_equal "stalled", verdict(p99_us: 21_920).word
    assert_equal "not stalled", verdict(p99_us: 21_919).word
    assert_equal "stalled", verdict(p99_us: 125_000, working_p99_us: 3_100).word
    assert_equal "not stalled", verdict(p99_us: 125_000, working_p99_us: 3_200).word, "22.6 ms unexplained, under a fifth of the p99"
  end

  # Puma workers=2 threads=4 on /io?ms=50 with 32 connections: four waves
  # of 50 ms; the p99 sits near 200 ms, and it is queueing.
  def test_queueing_behind_long_work_is_not_a_stall
    v = verdict(p99_us: 205_000, working_p99_us: 50_600, working_mean_us: 50_200, good_rps: 158.0,
      server_cpu_pct: 4.0)
    assert_equal "not stalled", v.word
    assert_match(/at most 1568\.6 ms queueing .* 0\.0 ms unexplained: work and queueing, not a stall\z/, v.reason)
  end

  # A fast request whose tail is long while the slots were full: a queue
  # (one slot at 2 ms a request, 32 connections, served 480 req/s).
  def test_busy_slots_are_a_queue
    v = verdict(p99_us: 130_000, working_p99_us: 1_000, working_mean_us: 1_900, good_rps: 480.0, slots: 1)
    assert_equal "not stalled", v.word
    assert_equal "p99 130.0 ms: working p99 1.0 ms and at most 31.0 ms queueing (31 requests ahead on one slot) explain 32.0 ms, " \
      "98.0 ms unexplained, but 91% of 1 slots were busy: a queue, not a stall", v.reason
    # 0.8 of the slot busy is a queue already (480 req/s x 1,666.7 us).
    assert_equal "not stalled", verdict(p99_us: 130_000, working_p99_us: 1_000, working_mean_us: 5000.0 / 3, good_rps: 480.0, slots: 1).word
    # The slots a closed loop fills are at most its connections: 64 declared, 32 connections.
    assert_match(/ of 32 slots busy /, verdict(slots: 64).reason)
    assert_equal "stalled", verdict(p99_us: 130_000, working_p99_us: 1_000, working_mean_us: 1_600, good_rps: 480.0, slots: 1).word,
      "77% busy is under the 80% a queue needs"
  end

  def test_a_busy_cpu_explains_the_tail
    v = verdict(server_cpu_pct: 100.0)
    assert_equal "not stalled", v.word
    assert_match(/, but the server used 50% of its cores: time waiting for a core, not a stall\z/, v.reason)
    assert_equal "stalled", verdict(server_cpu_pct: 99.0).word
    assert_equal "stalled", verdict(server_cpu_pct: nil).word, "no CPU figure: the slots still say"
    assert_match(/while 1% of 8 slots busy; likely/, verdict(server_cpu_pct: nil).reason)
    assert_equal "stalled", verdict(server_cpu_pct: 40.0, server_cores: nil).word, "no cores known: one"
    assert_equal "not stalled", verdict(server_cpu_pct: 50.0, server_cores: nil).word
  end

  # WEBrick's delayed ACK: a thread per connection, no fixed ceiling.
  def test_a_delay_is_named_by_its_length_or_not_at_all
    webrick = verdict(p99_us: 45_300, working_p99_us: 90, working_mean_us: 40, good_rps: 690.0, slots: nil, server_cpu_pct: 6.0)
    assert_equal "stalled", webrick.word
    assert_match(/ 42\.4 ms unexplained while 0% of 32 slots busy and 3% of its cores; likely Linux's 40 ms delayed ACK/, webrick.reason)
    odd = verdict(p99_us: 70_000)
    assert_equal "stalled", odd.word
    assert odd.reason.end_with?("; no known fixed delay"), odd.reason
  end

  # A unicorn beside another test's servers: p99 73.6 ms at 28% of its core,
  # every measurement of the run noisy. Time of no known length on a busy
  # machine is time waiting for a core; Agoo's 100 ms poll is still named.
  def test_on_a_busy_machine_only_a_named_delay_is_a_stall
    v = verdict(p99_us: 70_000, noisy: true)
    assert_equal "not stalled", v.word
    assert_equal "p99 70.0 ms: working p99 0.1 ms and at most 1.9 ms queueing (31 requests ahead on one slot) explain 1.9 ms, " \
      "68.1 ms unexplained while 1% of 8 slots busy and 5% of its cores, but the machine was busy (noisy) and no known " \
      "fixed delay matches: time waiting for a core, not a stall", v.reason
    assert_equal "stalled", verdict(noisy: true).word
    assert_match(/likely a 100 ms poll/, verdict(noisy: true).reason)
  end

  def test_the_flag_passes_the_machines_noise_on
    load = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0,
      "throughput_rps" => 1674.0, "connections" => {"requested" => 32, "opened" => 32}, "requests" => {"sent" => 3380, "completed" => 3348},
      "good" => {"completed" => 3348, "rps" => 1674.0,
                 "latency_us" => {"count" => 3348, "p50" => 180, "p99" => 70_000, "mean" => 19_100, "max" => 103_000}}})
    queue = Arena::Results::QueueSplit.new(n: 400, queue_n: 400, queue_p50_us: 120, queue_p99_us: 68_000, work_p50_us: 20,
      work_p99_us: 60, work_mean_us: 25, queue_mean_us: 18_700).freeze
    figures = ->(noisy) do
      Arena::Verdicts::Flags::Figures.new(load: load, settled: true, server_cpu_pct: 10.0, server_cores: 2, queue: queue,
        slots: 8, service_us: 200, noisy: noisy)
    end
    assert_equal "stalled", Rule.flag(figures.call(false)).word
    assert_nil Rule.flag(figures.call(true))
    assert_equal true, Rule.figures(load, queue, slots: 8, server_cpu_pct: 10.0, server_cores: 2, noisy: true).noisy
    assert_equal false, Rule.figures(load, queue, slots: 8, server_cpu_pct: 10.0, server_cores: 2).noisy
  end

  def test_without_figures_it_cannot_judge
    assert_equal "cannot judge: no p99 measured", verdict(p99_us: nil).to_s
    assert_equal "cannot judge: no p99 measured", verdict(good_rps: 0.0).to_s
    assert_equal "cannot judge: no p99 measured", verdict(good_rps: nil).to_s
    assert_equal "cannot judge: no p99 measured", verdict(good_rps: -1.0).to_s, "no rate is not a negative one"
    assert_equal "cannot judge: open model: its connections are not all busy by design", verdict(open_model: true).to_s
    split = "cannot judge: no waiting/working split of 20 requests (--queue-time on)"
    assert_equal split, verdict(working_p99_us: nil).to_s
    assert_equal split, verdict(working_mean_us: nil).to_s
    assert_equal split, verdict(split_n: 19).to_s
    assert_equal split, verdict(split_n: nil).to_s
    assert_equal "stalled", verdict(split_n: 20).word
    assert_equal "cannot judge: no connections", verdict(connections: 0).to_s
    assert_equal "cannot judge: no connections", verdict(connections: nil).to_s
    assert_equal "stalled", verdict(good_rps: 0.5).word, "a slow rate is still a rate"
  end
end
