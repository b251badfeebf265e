# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# The stall rule on synthetic figures of known truth: latency at a fixed delay
# while the server idles and every connection waits is "stalled"; the same
# latency from a busy CPU, from idle connections or away from a delay is not.
class StallTest < Minitest::Test
  # uWSGI's router on /body before its buffer was raised: 531 req/s at
  # c=16, p50 43.9 ms, the server's tree at 22% of one core (of 1).
  UWSGI = {p50_us: 43_900, p75_us: 48_000, p90_us: 51_600, p99_us: 58_000, mean_us: 30_100, good_rps: 531.0, connections: 16, open_model: false,
           keep_alive: true, server_cpu_pct: 22.0, server_cores: 1}.freeze

  def verdict(**changes) = Arena::Stall.verdict(Arena::Stall::Figures.new(**UWSGI.merge(changes)).freeze)

  def test_delayed_ack_shape_is_stalled_with_its_cause_and_the_telling_run
    v = verdict
    assert_equal "stalled", v.word
    assert_equal "p50 43.9 ms sits at 40 ms while the server used 22% of its cores and all 16 connections were waiting; " \
      "likely Linux's 40 ms delayed ACK: a response written in pieces without TCP_NODELAY (Nagle) waits for the " \
      "client's late acknowledgement; the same run with --keep-alive off (a new connection acknowledges at once) or a " \
      "response under 4 KB (written whole) does not wait if this is the cause", v.reason
  end

  def test_a_poll_timer_at_p90_is_stalled_too
    # Agoo on /server: p50 0.4 ms, p90 100.6 ms, p99 102.8 ms, CPU 7%.
    agoo = {p50_us: 400, p75_us: 1_700, p90_us: 100_600, p99_us: 102_800, mean_us: 14_000, good_rps: 1117.0, server_cpu_pct: 7.0}
    v = verdict(**agoo)
    assert_equal "stalled", v.word
    assert_match(/\Ap90 100.6 ms sits at 100 ms .* likely a 100 ms poll interval or timer/, v.reason)
    # p99 far above the delay: a spread passing through it, not a cluster at it.
    assert_equal "not stalled", verdict(**agoo, p99_us: 160_000).word
  end

  # One response in a hundred at 40 ms lands there by chance on a busy machine.
  def test_a_p99_alone_at_a_delay_is_not_a_stall
    v = verdict(p50_us: 19_600, p75_us: 24_000, p90_us: 30_000, p99_us: 40_400, mean_us: 20_000, good_rps: 800.0)
    assert_equal "not stalled: no percentile sits at a known fixed delay", v.to_s
  end

  def test_a_median_at_a_delay_with_the_rest_spread_far_above_is_not_a_stall
    assert_equal "not stalled", verdict(p75_us: 70_000).word
  end

  def test_keep_alive_off_at_40_ms_is_not_blamed_on_delayed_ack
    v = verdict(keep_alive: false)
    assert_equal "stalled", v.word
    assert_match(/keep-alive was off, so not delayed ACK/, v.reason)
  end

  def test_a_busy_cpu_is_queueing_not_a_stall
    v = verdict(server_cpu_pct: 60.0)
    assert_equal "not stalled", v.word
    assert_equal "latency at 40 ms, but the server used 60% of its cores", v.reason
    # The share is of the server's cores: 60% of one core is low on two.
    assert_equal "stalled", verdict(server_cpu_pct: 60.0, server_cores: 2).word
  end

  def test_idle_connections_are_not_a_stall
    # 100 req/s x 30 ms mean = 3 of 16 connections busy: the client waited, not the server.
    v = verdict(good_rps: 100.0)
    assert_equal "not stalled", v.word
    assert_equal "latency at 40 ms, but the connections were waiting only 19% of the time", v.reason
  end

  def test_latency_away_from_every_delay_is_not_stalled
    assert_equal "not stalled", verdict(p50_us: 30_000, p90_us: 35_000).word
    assert_equal "not stalled", verdict(p50_us: 51_000, p75_us: 55_000, p90_us: 60_000).word
    assert_equal "not stalled", verdict(p50_us: 39_000, p90_us: 39_100).word
    # Just inside the band at both ends.
    assert_equal "stalled", verdict(p50_us: 39_200).word
    assert_equal "stalled", verdict(p50_us: 50_000).word
  end

  def test_what_it_cannot_judge
    assert_equal "cannot judge: open model: its connections are not all busy by design", verdict(open_model: true).to_s
    assert_equal "cannot judge: no CPU figure for the server", verdict(server_cpu_pct: nil).to_s
    assert_equal "cannot judge: no latency measured", verdict(p50_us: nil).to_s
    refute verdict(good_rps: 0.0).judged?
  end

  # Recorded, shown and never picked silently: Puma's rows in a real run's
  # results marked stalled as the runner would mark them.
  def test_a_stalled_row_is_marked_in_the_table_explained_and_named_in_the_pick
    fixture = File.expand_path("../fixtures/results/steady", __dir__)
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
    assert_match(/#{Regexp.escape(puma)} +\| server +\| steady keep-alive +\| 5,651 \(not measured\) stalled \|/, table)
    assert_match(/falcon:count=2,model=forked +\| server +\| steady keep-alive +\| +3,982 \(not measured\) \|/, table)
    stall_lines = Arena::Report::Findings.lines(document).grep(/stalled/)
    assert_includes stall_lines, "#{puma} server steady keep-alive: stalled (2 of 2 runs): p50 43.9 ms sits at 40 ms"
    assert_equal 2, stall_lines.size, "one line per row (server, primes), not one per run"
    api = Arena::Report::Recommend.new(document).call.first
    assert_nil api.pick, "two runs each: too few for the pick's test"
    assert api.because.start_with?("#{puma} 5,651 good req/s (4,363–6,938 over 2 runs), p99 11.8ms, CPU 38%, stalled (its latency is a fixed delay: see Findings)"), api.because
  end
end
