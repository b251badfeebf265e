# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The stall rule on synthetic figures of known truth: latency at a fixed delay
# while the server idles and every connection waits is "stalled"; the same
# latency from a busy CPU, from idle connections or away from a delay is not.
class StallTest < Minitest::Test
  cover "Arena::Verdicts::Stall*"

  # WEBrick on the known-capacity app, /io?ms=50, 32 connections (issue 33):
  # 342 good req/s, p50 92 ms, the app's own split waiting 0.8 ms and
  # working 49.5 ms: 42 ms that nothing explains.
  WEBRICK = {p50_us: 92_000, mean_us: 93_500, good_rps: 342.0, connections: 32, open_model: false, keep_alive: true,
             server_cpu_pct: 21.0, server_cores: 1, waiting_p50_us: 800, working_p50_us: 49_500, slots: nil,
             service_us: 50_400}.freeze

  def verdict(**changes) = Arena::Verdicts::Stall.verdict(Arena::Verdicts::Stall::Figures.new(**WEBRICK.merge(changes)).freeze)

  def test_time_nothing_explains_is_a_stall_named_by_its_length_with_what_it_cost
    v = verdict
    assert_equal "stalled", v.word
    assert_equal "p50 92.0 ms = waiting 0.8 ms + working 49.5 ms + 41.7 ms unexplained while the server used 21% of its " \
      "cores; likely Linux's 40 ms delayed ACK: a response written in pieces without TCP_NODELAY (Nagle) waits for the " \
      "client's late acknowledgement; the same run with --keep-alive off (a new connection acknowledges at once) or a " \
      "response under 4 KB (written whole) does not wait if this is the cause; it cost about 284 of 626 req/s", v.reason
  end

  # WEBrick on the built-in app's /json in a default run (session 7): 355
  # req/s at 14% of its core, 44 ms p50, the app working 0.0 ms. Without the
  # app's time the connections "would" pass 25,565 req/s, and it said "it
  # cost about 25210 of 25565". Its cores serve at most its CPU per request
  # allows: 355 / 0.14, about 2,536.
  def test_what_a_stall_cost_is_capped_by_the_cpu_per_request
    v = verdict(p50_us: 44_000, mean_us: 44_200, good_rps: 355.0, server_cpu_pct: 14.0, waiting_p50_us: 600, working_p50_us: 30,
      waiting_mean_us: 600, working_mean_us: 30, slots: nil, service_us: 300)
    assert_equal "stalled", v.word
    assert v.reason.end_with?("it cost about 2181 of 2536 req/s (what its cores serve at 14% of them for 355 req/s)"), v.reason
    assert_match(/it cost about 284 of 626 req\/s\z/, verdict.reason, "a cap above the app's limit is not said")
    assert_match(/it cost about 24551 of 24906 req\/s\z/, verdict(p50_us: 44_000, mean_us: 44_200, good_rps: 355.0, server_cpu_pct: nil,
      waiting_p50_us: 600, working_p50_us: 30, waiting_mean_us: 600, working_mean_us: 30).reason, "no CPU figure: no CPU cap")
  end

  # Puma workers=2 threads=4 (8 slots), 32 connections: four waves of 50 ms.
  # Its p50 sits at 200 ms, which the old rule called a delayed ACK.
  def test_queueing_at_a_round_delay_is_not_a_stall
    v = verdict(p50_us: 204_000, mean_us: 203_000, good_rps: 157.0, waiting_p50_us: 152_000, working_p50_us: 50_500, slots: 8)
    assert_equal "not stalled", v.word
    assert_equal "p50 204.0 ms = waiting 152.0 ms + working 50.5 ms + 1.5 ms unexplained: queueing, not a stall", v.reason
    work = verdict(p50_us: 51_000, waiting_p50_us: 300, working_p50_us: 50_500)
    assert_equal "p50 51.0 ms = waiting 0.3 ms + working 50.5 ms + 0.2 ms unexplained: work, not a stall", work.reason
    assert_match(/: work, not a stall\z/, verdict(p50_us: 51_000, waiting_p50_us: 25_000, working_p50_us: 25_000).reason,
      "waiting only as long as working is not queueing")
    # The p50 of a sum is not the sum of p50s: a little under shows as none.
    assert_match(/ \+ 0\.0 ms unexplained: queueing/, verdict(p50_us: 190_000, waiting_p50_us: 152_000, working_p50_us: 50_500).reason)
  end

  # Puma workers=2 threads=4 on the known-capacity app, re-run in session 7:
  # 158 req/s, p50 202.7 ms, and a 1-in-16 sample whose waiting p50 fell on
  # 103.3 ms (requests wait 100 or 150 ms in turn) though its mean was 150:
  # p50s said 50 ms unexplained, a stall, in 2 of 3 rounds. Means add up.
  def test_the_split_is_summed_on_means_where_it_has_them
    # slots: nil here keeps the busy-slots guard (next test) out of it.
    puma = {p50_us: 202_700, mean_us: 201_000, good_rps: 158.0, waiting_p50_us: 103_300, working_p50_us: 49_500, slots: nil}
    assert_equal "stalled", verdict(**puma).word, "on p50s (a document without means)"
    v = verdict(**puma, waiting_mean_us: 150_600, working_mean_us: 49_800)
    assert_equal "not stalled", v.word
    assert_equal "mean 201.0 ms = waiting 150.6 ms + working 49.8 ms + 0.6 ms unexplained: queueing, not a stall", v.reason
    webrick = verdict(mean_us: 93_500, waiting_mean_us: 900, working_mean_us: 49_800)
    assert_equal "stalled", webrick.word
    assert_match(/\Amean 93\.5 ms = waiting 0\.9 ms \+ working 49\.8 ms \+ 42\.8 ms unexplained .*likely Linux's 40 ms delayed ACK.*it cost about 289 of 631 req\/s\z/, webrick.reason)
    # Half a pair of means is none: the p50s are used.
    assert_match(/\Ap50 /, verdict(waiting_mean_us: 900).reason)
  end

  # Iodine workers=2 threads=4 (8 slots), 32 connections on 50 ms: 158 req/s,
  # mean 202 ms, yet 1 ms waiting before the app. Little's law: 7.9 of 8
  # slots busy, so the other 24 requests queued where the app's clock does
  # not see. Full slots are a queue, not a stall; and a stall's cost never
  # passes what the slots serve (it read "958 of 160 req/s").
  def test_slots_kept_busy_are_a_queue_whatever_the_split_says
    iodine = {p50_us: 210_000, mean_us: 202_000, good_rps: 158.6, waiting_mean_us: 1_000, working_mean_us: 49_600, slots: 8}
    v = verdict(**iodine)
    assert_equal "not stalled", v.word
    assert_equal "mean 202.0 ms = waiting 1.0 ms + working 49.6 ms + 151.4 ms unexplained, but 98% of 8 slots were busy " \
      "(159 req/s x 49.6 ms working): a queue the app's clock does not see, not a stall", v.reason
    half = verdict(**iodine, good_rps: 79.3, mean_us: 403_000)
    assert_equal "stalled", half.word, "4 of 8 slots busy: the unexplained time is not the slots' queue"
    assert_match(/it cost about 82 of 161 req\/s\z/, half.reason, "capped at 8 slots / 49.6 ms")
    # At the count's edge (32 / 250 ms is 128 req/s, under the count: the count decides).
    assert_equal "not stalled", verdict(**iodine, good_rps: 129.1, mean_us: 250_000).word, "80% busy"
    assert_equal "stalled", verdict(**iodine, good_rps: 128.9, mean_us: 250_000).word, "79.9% busy"
  end

  # One-slot Thin on /io?ms=50 in a 2 s round beside another test file
  # (session 11's fresh-check G): 15.0 counted req/s, mean 1600.8 ms =
  # waiting 912.3 + working 51.6 + 637.0 ms the app did not see (its event
  # loop writes answers in batches). The count said 77% of the slot busy, a
  # stall; but a round counts the answers that arrive in it, and answers held
  # across its edges move that count. Little's law on the closed loop reads
  # 32 connections / 1600.8 ms = 20.0 req/s: the slot was never idle.
  def test_slots_kept_busy_by_littles_law_are_a_queue_when_the_count_reads_fewer
    thin = {p50_us: 1_570_000, mean_us: 1_600_800, good_rps: 15.0, waiting_mean_us: 912_300, working_mean_us: 51_600, slots: 1,
            server_cpu_pct: 2.0, split_n: 30}
    v = verdict(**thin)
    assert_equal "not stalled", v.word
    assert_equal "mean 1600.8 ms = waiting 912.3 ms + working 51.6 ms + 636.9 ms unexplained, but 103% of 1 slots were busy " \
      "(20 req/s x 51.6 ms working; the rate is Little's law on the loop, 32 connections / 1600.8 ms, where the round " \
      "counted 15): a queue the app's clock does not see, not a stall", v.reason
    # The loop's rate counts only where it reads more than the round did.
    assert_equal "not stalled", verdict(**thin, good_rps: 20.0).word
    assert_match(/, but 103% of 1 slots were busy \(20 req\/s x 51\.6 ms working\): a queue/, verdict(**thin, good_rps: 20.0).reason)
    # An open model has no loop (it cannot be judged at all), and a loop of
    # fewer connections passes fewer: 24 / 1600.8 ms = 15 req/s, 77% busy.
    assert_equal "stalled", verdict(**thin, connections: 24).word
    assert_equal "stalled", verdict(**thin, connections: 24, good_rps: 14.0).word
    # Little's law is on the mean, not the p50 a document without means sums.
    assert_equal "stalled", verdict(**thin, waiting_mean_us: nil, waiting_p50_us: 880_000, working_p50_us: 51_600,
      p50_us: 1_570_000, mean_us: 2_400_000).word
  end

  # The busy-slots edge on exact figures (128 req/s x 50 ms over 8 slots is
  # 0.8 to the bit), no slots to fill without connections or with a declared
  # 0, and the cap on the cost only where there are slots.
  def test_the_busy_slots_at_their_edge_and_without_slots
    split = {p50_us: 250_000, mean_us: 250_000, waiting_mean_us: 1_000, working_mean_us: 50_000, slots: 8}
    # Little's law on the loop, 32 / 260 ms (123 req/s), reads under the count, which decides.
    v = verdict(**split, good_rps: 128.0, mean_us: 260_000)
    assert_equal "not stalled", v.word
    assert_match(/, but 80% of 8 slots were busy \(128 req\/s x 50\.0 ms working\): a queue/, v.reason)
    assert_equal "stalled", verdict(**split, good_rps: 127.9, mean_us: 260_000).word
    # Without connections there are no slots to fill: no busy share, no cap.
    # (The server at 10% of its core: its CPU allows 1,280 req/s, no cap either.)
    free = verdict(**split, good_rps: 128.0, connections: nil, server_cpu_pct: 10.0)
    assert_equal "stalled", free.word
    assert_match(/; it cost about 499 of 627 req\/s\z/, free.reason, "128 x 250 / 51, not capped at 8 / 50 ms (160)")
    assert_match(/; it cost about 499 of 627 req\/s\z/, verdict(**split, good_rps: 128.0, slots: 0, server_cpu_pct: 10.0).reason, "a declared 0")
    # 12 connections fill 12 of 16 slots: 42% busy, capped at 12 / 50 ms.
    assert_match(/; it cost about 140 of 240 req\/s\z/, verdict(**split, good_rps: 100.0, slots: 16, connections: 12).reason)
    # A split of zeros explains nothing: the cost stays a number (explained floored at 1 us).
    zeros = verdict(mean_us: 92_000, waiting_mean_us: 0, working_mean_us: 0)
    assert_equal "stalled", zeros.word
    assert_match(/; it cost about 1287 of 1629 req\/s \(what its cores serve at 21% of them for 342 req\/s\)\z/, zeros.reason)
    no_cpu = verdict(mean_us: 92_000, waiting_mean_us: 0, working_mean_us: 0, server_cpu_pct: nil)
    assert_match(/; it cost about 31463658 of 31464000 req\/s\z/, no_cpu.reason, "no CPU figure: only the 1 us floor")
  end

  # A split of a few timed requests says little: the slots' occupancy decides.
  def test_a_split_of_few_samples_is_not_read
    thin = {p50_us: 1_634_800, mean_us: 1_636_700, good_rps: 17.33, waiting_mean_us: 413_000, working_mean_us: 50_500,
            slots: 1, service_us: 50_500}
    assert_equal "stalled", verdict(**thin, slots: nil, split_n: 20).word, "20 samples: the split is read"
    v = verdict(**thin, split_n: 19)
    assert_equal "not stalled", v.word
    assert_match(/\Aslots 88% busy .*: queueing, not a stall\z/, v.reason)
  end

  # Iodine workers=2 threads=4 in the lane (session 8's fresh-check): every
  # connection in one worker, 79 req/s, 10 timed requests. The occupancy
  # (51% of 8) left 199 ms over the 8-slot prediction, near 200 ms: it said
  # "stalled, delayed ACK at its longest". Its few timed requests waited
  # 362.8 ms before the app and worked 51.6 ms: queueing on 4 slots.
  def test_few_timed_requests_that_only_waited_and_worked_are_queueing
    iodine = {p50_us: 400_000, mean_us: 406_000, good_rps: 79.0, slots: 8, service_us: 51_800, server_cpu_pct: 3.0,
              waiting_mean_us: 362_800, working_mean_us: 51_600, waiting_p50_us: 360_000, working_p50_us: 51_600}
    v = verdict(**iodine, split_n: 10)
    assert_equal "not stalled", v.word
    assert_equal "slots 51% busy (79 req/s x 51.8 ms unloaded over 8 slots); mean 406.0 ms against 207.2 ms queueing predicts; " \
      "10 timed requests waited 362.8 ms before the app and worked 51.6 ms (means), 0.0 ms unexplained: queueing on fewer " \
      "slots, not a stall", v.reason
    assert_equal "stalled", verdict(**iodine, split_n: 4).word, "under 5 timed requests: the occupancy alone"
    assert_equal "not stalled", verdict(**iodine, split_n: 5).word
    assert_equal "stalled", verdict(**iodine, split_n: 10, waiting_mean_us: 250_000).word, "104.4 ms unexplained, over 20% of 406"
    assert_equal "not stalled", verdict(**iodine, split_n: 10, waiting_mean_us: 273_300).word, "81.1 ms: under 20% of 406"
    assert_equal "stalled", verdict(**iodine, split_n: 10, waiting_mean_us: 40_000, working_mean_us: 360_000).word,
      "waiting under working: not a queue"
    assert_equal "stalled", verdict(**iodine, split_n: 10, waiting_mean_us: nil).word
    assert_equal "stalled", verdict(**iodine, split_n: 10, working_mean_us: nil).word, "half a pair of means is none"
    # The edges: 81.2 ms unexplained is 20% of 406 ms (a stall's share), and
    # waiting only as long as working is not a queue.
    assert_equal "stalled", verdict(**iodine, split_n: 10, waiting_mean_us: 273_200).word, "81.2 ms: 20% of 406"
    assert_equal "stalled", verdict(**iodine, split_n: 10, waiting_mean_us: 177_200, working_mean_us: 177_200).word
  end

  # At least max(20 ms, 20% of p50) unexplained.
  def test_the_threshold_is_20_ms_or_a_fifth_of_p50
    assert_equal "stalled", verdict(p50_us: 70_300).word, "20.0 ms of 70.3"
    assert_equal "not stalled", verdict(p50_us: 70_299).word, "19.999 ms"
    # p50 300 ms: 60 ms needed.
    long = {waiting_p50_us: 200_000, working_p50_us: 40_000}
    assert_equal "stalled", verdict(p50_us: 300_000, **long).word
    assert_equal "not stalled", verdict(p50_us: 299_999, **long).word
  end

  def test_a_poll_timer_is_named_from_the_unexplained_part
    v = verdict(p50_us: 101_200, mean_us: 101_000, good_rps: 316.0, waiting_p50_us: 400, working_p50_us: 300)
    assert_equal "stalled", v.word
    assert_match(/ \+ 100\.5 ms unexplained while .*; likely a 100 ms poll interval or timer in the server .*; lowering the server's poll/, v.reason)
    assert_match(/likely delayed ACK at its longest \(200 ms\)/, verdict(p50_us: 251_000).reason)
  end

  def test_unexplained_time_of_no_known_length_is_said_as_such
    v = verdict(p50_us: 80_000)
    assert_equal "stalled", v.word
    assert_match(/ \+ 29\.7 ms unexplained while the server used 21% of its cores; no known fixed delay; it cost about \d+ of \d+ req\/s\z/, v.reason)
    # The band around 40 ms: 34 ms (0.85) to 52 ms (1.3).
    assert_match(/likely Linux's 40 ms/, verdict(p50_us: 50_300 + 34_000).reason)
    assert_match(/no known fixed delay/, verdict(p50_us: 50_300 + 33_900).reason)
    assert_match(/likely Linux's 40 ms/, verdict(p50_us: 50_300 + 52_000).reason)
    assert_match(/no known fixed delay/, verdict(p50_us: 50_300 + 52_100).reason)
  end

  # A busy machine (the measurement flagged noisy) explains time of no known
  # length: another process held the core. A named delay is still a stall.
  def test_on_a_busy_machine_only_a_named_delay_is_a_stall
    v = verdict(p50_us: 80_000, noisy: true)
    assert_equal "not stalled", v.word
    assert_equal "p50 80.0 ms = waiting 0.8 ms + working 49.5 ms + 29.7 ms unexplained while the server used 21% of its cores, " \
      "but the machine was busy (noisy) and no known fixed delay matches: time waiting for a core, not a stall", v.reason
    assert_equal "stalled", verdict(p50_us: 80_000, noisy: false).word
    assert_match(/likely Linux's 40 ms/, verdict(noisy: true).reason)
    assert_equal "stalled", verdict(noisy: true).word
  end

  def test_keep_alive_off_at_40_ms_is_not_blamed_on_delayed_ack
    v = verdict(keep_alive: false)
    assert_equal "stalled", v.word
    assert_match(/; likely a 40 ms timer in the server \(keep-alive was off, so not delayed ACK on a kept-alive connection\); it cost/, v.reason)
  end

  # Keep-alive off rules out delayed ACK on a kept-alive connection only at
  # 40 ms: a 100 or 200 ms delay keeps its own cause.
  def test_keep_alive_off_changes_only_the_40_ms_cause
    poll = verdict(keep_alive: false, p50_us: 101_200, waiting_p50_us: 400, working_p50_us: 300)
    assert_match(/; likely a 100 ms poll interval or timer in the server \(a missed wake-up waits out the poll timeout\); lowering/, poll.reason)
    long = verdict(keep_alive: false, p50_us: 251_000)
    assert_match(/; likely delayed ACK at its longest \(200 ms\) or a 200 ms timer; the same run with --keep-alive off or a smaller /, long.reason)
    assert_match(/likely Linux's 40 ms delayed ACK/, verdict(keep_alive: nil).reason, "keep-alive not recorded: not said off")
  end

  # Figures not recorded: no server cores is one core, a half split in
  # either half is none, and any rate above nothing is judged.
  def test_figures_not_recorded
    assert_equal "not stalled", verdict(server_cpu_pct: 60.0, server_cores: nil).word, "60% of one core"
    assert_match(/\Ap50 /, verdict(working_mean_us: 49_800).reason, "half a pair of means")
    assert_match(/\Aslots /, verdict(waiting_p50_us: nil).reason, "half a pair of p50s")
    assert_equal "cannot judge: no connections", verdict(waiting_p50_us: nil, working_p50_us: nil, connections: nil).to_s
    assert verdict(good_rps: 0.5).judged?
  end

  # Low CPU only supports a stall: unknown CPU still judges, a busy CPU explains
  # time outside the app (a thread waiting for a core or the GVL).
  def test_cpu_supports_but_never_proves
    assert_equal "stalled", verdict(server_cpu_pct: nil).word
    refute_match(/of its cores/, verdict(server_cpu_pct: nil).reason)
    busy = verdict(server_cpu_pct: 50.0)
    assert_equal "not stalled", busy.word
    assert_equal "p50 92.0 ms = waiting 0.8 ms + working 49.5 ms + 41.7 ms unexplained, but the server used 50% of its " \
      "cores: time waiting for a core or the GVL outside the app, not a stall", busy.reason
    assert_equal "stalled", verdict(server_cpu_pct: 49.9).word
    # The share is of the server's cores: 60% of one core is low on two.
    assert_equal "stalled", verdict(server_cpu_pct: 60.0, server_cores: 2).word
    assert_equal "not stalled", verdict(server_cpu_pct: 60.0, server_cores: 0).word, "at least one core"
  end

  # Without the split: Little's law on the declared slots and the unloaded
  # service time. WEBrick: 32 connections, no fixed ceiling, 50.4 ms unloaded.
  def test_without_the_split_a_delay_above_the_queueing_prediction_is_a_stall
    v = verdict(waiting_p50_us: nil, working_p50_us: nil)
    assert_equal "stalled", v.word
    assert_equal "slots 54% busy (342 req/s x 50.4 ms unloaded over 32 slots); mean 93.5 ms against 50.4 ms queueing predicts " \
      "while the server used 21% of its cores; likely Linux's 40 ms delayed ACK: a response written in pieces without " \
      "TCP_NODELAY (Nagle) waits for the client's late acknowledgement; the same run with --keep-alive off (a new " \
      "connection acknowledges at once) or a response under 4 KB (written whole) does not wait if this is the cause; " \
      "it cost about 293 of 635 req/s", v.reason
    assert_equal "stalled", verdict(working_p50_us: nil).word, "half a split is none"
  end

  def test_without_the_split_queueing_keeps_the_slots_busy
    # Puma 8 slots: 157 req/s x 50.4 ms / 8 = 99% busy, mean 203 ms against 202 predicted.
    v = verdict(waiting_p50_us: nil, working_p50_us: nil, p50_us: 204_000, mean_us: 203_000, good_rps: 157.0, slots: 8)
    assert_equal "not stalled", v.word
    assert_equal "slots 99% busy (157 req/s x 50.4 ms unloaded over 8 slots); mean 203.0 ms against 201.6 ms queueing " \
      "predicts: queueing, not a stall", v.reason
    # Busy slots are queueing even with 43 ms over the prediction (near a delay).
    assert_equal "not stalled", verdict(waiting_p50_us: nil, working_p50_us: nil, p50_us: 204_000, mean_us: 245_000, good_rps: 157.0,
      slots: 8).word
    # Slots over the connections: the connections are the ceiling.
    assert_match(/over 32 slots/, verdict(waiting_p50_us: nil, working_p50_us: nil, slots: 64).reason)
  end

  # Busy under 80% with an excess of no known length: fewer requests in
  # service than declared (Agoo's one at a time) is not called a stall.
  def test_without_the_split_an_excess_of_no_known_length_is_not_a_stall
    agoo = {waiting_p50_us: nil, working_p50_us: nil, p50_us: 1_600_000, mean_us: 1_620_000, good_rps: 19.7, slots: 8}
    v = verdict(**agoo)
    assert_equal "not stalled", v.word
    assert_equal "slots 12% busy (20 req/s x 50.4 ms unloaded over 8 slots); mean 1620.0 ms against 201.6 ms queueing " \
      "predicts: 1418.4 ms more, no known fixed delay (fewer requests in service than the slots? --queue-time on tells)", v.reason
  end

  def test_without_the_split_the_edges
    none = {waiting_p50_us: nil, working_p50_us: nil}
    # 80% busy is queueing, whatever the latency.
    assert_equal "not stalled", verdict(**none, good_rps: 32 * 0.8 / 0.0504).word
    assert_equal "stalled", verdict(**none, good_rps: 32 * 0.7999 / 0.0504).word
    # An excess under max(20 ms, 20% of p50) is not a stall.
    assert_equal "not stalled", verdict(**none, mean_us: 50_400 + 19_999).word
    assert_match(/queueing, not a stall/, verdict(**none, mean_us: 50_400 + 19_999).reason)
    assert_equal "cannot judge: no waiting/working split (--queue-time on) and no unloaded latency to compare with",
      verdict(**none, service_us: nil).to_s
    refute verdict(**none, service_us: 0).judged?
    assert_equal "cannot judge: no connections", verdict(**none, connections: 0).to_s
    assert_equal "not stalled", verdict(**none, server_cpu_pct: 80.0).word
  end

  def test_what_it_cannot_judge
    assert_equal "cannot judge: open model: its connections are not all busy by design", verdict(open_model: true).to_s
    assert_equal "cannot judge: no latency measured", verdict(p50_us: nil).to_s
    assert_equal "cannot judge: no latency measured", verdict(mean_us: nil).to_s
    refute verdict(good_rps: 0.0).judged?
    refute verdict(good_rps: nil).judged?
    refute verdict(good_rps: -1.0).judged?, "no rate is not a negative one"
  end

  # The summary's flag: the verdict on a measurement's figures when it says
  # stalled, else nothing (WEBrick's 40 ms delayed ACK, and the same load on
  # a busy machine, where 40 ms is still named).
  def test_the_flag_is_the_verdict_when_stalled
    load = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0,
      "throughput_rps" => 355.0, "connections" => {"requested" => 16, "opened" => 16}, "requests" => {"sent" => 726, "completed" => 710},
      "good" => {"completed" => 710, "rps" => 355.0,
                 "latency_us" => {"count" => 710, "p50" => 44_000, "p99" => 48_000, "mean" => 44_200, "max" => 49_000}}})
    queue = Arena::Results::QueueSplit.new(n: 400, queue_n: 400, queue_p50_us: 600, queue_p99_us: 900, work_p50_us: 30,
      work_p99_us: 90, work_mean_us: 30, queue_mean_us: 600).freeze
    figures = ->(**changes) do
      Arena::Verdicts::Flags::Figures.new(load: load, settled: true, server_cpu_pct: 14.0, server_cores: 1, queue: queue,
        service_us: 300, **changes)
    end
    v = Arena::Verdicts::Stall.flag(figures.call)
    assert_equal "stalled", v.word
    assert v.reason.start_with?("mean 44.2 ms = waiting 0.6 ms + working 0.0 ms + 43.6 ms unexplained"), v.reason
    assert_equal "stalled", Arena::Verdicts::Stall.flag(figures.call(noisy: true)).word
    assert_nil Arena::Verdicts::Stall.flag(figures.call(server_cpu_pct: 90.0)), "a busy CPU: not stalled, no flag"
  end
end

# The stalled flag in the reports (kept apart from StallTest, which mutant
# runs for every mutation of the rule: this one renders a whole report).
class StallReportTest < Minitest::Test
  # Recorded, shown and never picked silently: Puma's rows in a real run's
  # results marked stalled as the runner would mark them.
  def test_a_stalled_row_is_marked_in_the_table_explained_and_named_in_the_pick
    fixture = File.expand_path("../../fixtures/results/steady", __dir__)
    document = Arena::Report::Source.open(fixture).view
    puma = "puma:workers=2,threads=2,preload=false"
    marked = document.measurements.map do |m|
      next m unless m.server == puma && m.measured?
      m.with(summary: Arena::Results::Summary.new(**m.summary.to_h, flags: [*m.summary.flags, "stalled"].freeze,
        stall: "p50 43.9 ms sits at 40 ms").freeze)
    end
    document = document.with(measurements: marked.freeze)
    record = document.measured.find { |m| m.server == puma }.summary.to_record
    assert_equal "p50 43.9 ms sits at 40 ms", Arena::Results::Summary.from_h(JSON.parse(JSON.generate(record))).stall
    table = Arena::Report::Table.new(document).render
    assert_match(/\| puma:threads=2 +\| +5,651 stalled \|/, table)
    assert_match(/\| falcon +\| +3,982 \|/, table)
    assert_equal "5,651 (no interval) stalled", Arena::Report::Table.new(document).cells(Arena::Report::Rows.from(document).first)[3]
    stall_lines = Arena::Report::Findings.lines(document).grep(/stalled/)
    assert_includes stall_lines, "#{puma} server steady keep-alive: stalled (2 of 2 runs): p50 43.9 ms sits at 40 ms"
    assert_equal 2, stall_lines.size, "one line per row (server, primes), not one per run"
    api = Arena::Report::Recommend.new(document).call.first
    assert_nil api.pick, "two runs each: too few for the pick's test"
    assert api.because.start_with?("puma:threads=2 5,651 good req/s (4,363–6,938 over 2 runs), p99 11.8ms, CPU 38%, stalled (its latency is a fixed delay: see Findings)"), api.because
  end
end
