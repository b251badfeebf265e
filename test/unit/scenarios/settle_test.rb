# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Settle's unloaded baseline and wait, with a probe whose latency the test
# chooses (a fake standing in for the HTTP probe; the real one is exercised by
# every integration run) and a CPU-tick source the test drives.
class SettleTest < Minitest::Test
  cover "Arena::Scenarios::Settle*"

  Probe = Struct.new(:delays, :log) do
    def request(*args, **kw)
      log&.push([:probe, args, kw])
      delay = delays.shift
      raise Arena::Verify::HttpProbe::Failure, "refused" if delay == :fail
      sleep delay || 0
    end
  end

  TICK = Arena::System::Procfs::CLK_TCK

  def settle(delays, limit: 0.5, ticks: ->(_) { 0 }, log: nil, pids: -> { [] })
    Arena::Scenarios::Settle.new(pids: pids, probe: Probe.new(delays, log), workload: Arena::Plan::Workloads.builtin.fetch("server"),
      limit: limit, interval: 0.01, ticks: ticks)
  end

  # A tree busy for `busy` intervals (a core's worth of ticks each), then still.
  def tree(busy, log: nil)
    total = 0
    lambda do |pids|
      log&.push([:ticks, pids])
      total += TICK if (busy -= 1) >= 0
      total
    end
  end

  def test_idle_is_under_a_tenth_of_a_core_over_the_interval
    assert Arena::Scenarios::Settle.idle?(0, 0.2)
    assert Arena::Scenarios::Settle.idle?(0.1 * TICK * 0.2 - 1, 0.2)
    refute Arena::Scenarios::Settle.idle?(0.1 * TICK * 0.2, 0.2), "10% of a core is not idle"
    refute Arena::Scenarios::Settle.idle?(0.1 * TICK * 1.0, 1.0)
    assert Arena::Scenarios::Settle.idle?(0.1 * TICK * 1.0 - 1, 1.0)
  end

  def test_quick_is_within_three_times_the_unloaded_p50_and_never_under_3_ms
    base = Arena::Scenarios::Settle::Baseline.new(n: 50, p50_us: 2000, p99_us: 9000)
    assert Arena::Scenarios::Settle.quick?(6000, base)
    refute Arena::Scenarios::Settle.quick?(6001, base)
    small = Arena::Scenarios::Settle::Baseline.new(n: 50, p50_us: 100, p99_us: 200)
    assert Arena::Scenarios::Settle.quick?(3000, small)
    refute Arena::Scenarios::Settle.quick?(3001, small)
    assert Arena::Scenarios::Settle.quick?(10**9, nil), "no baseline: any answer will do"
  end

  def test_the_baseline_of_probe_times
    assert_nil Arena::Scenarios::Settle.baseline_of([])
    three = Arena::Scenarios::Settle.baseline_of([500, 100, 300])
    assert_equal [3, 300, 500], [three.n, three.p50_us, three.p99_us]
    assert three.frozen?
    hundred = Arena::Scenarios::Settle.baseline_of((1..100).to_a.shuffle(random: Random.new(1)))
    assert_equal [100, 51, 99], [hundred.n, hundred.p50_us, hundred.p99_us]
    two_hundred = Arena::Scenarios::Settle.baseline_of((1..200).to_a.reverse)
    assert_equal [200, 101, 198], [two_hundred.n, two_hundred.p50_us, two_hundred.p99_us]
    assert_equal({"n" => 3, "p50_us" => 300, "p99_us" => 500}, three.to_h)
  end

  # A mix whose slow member is a quarter of the draws: fast probes alone
  # would set a 100 ms SLO that the mix's own sleeps break.
  def test_the_baseline_goes_on_until_a_mix_shows_its_slow_member
    delays = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.08]
    base = settle(delays).baseline(seconds: 0.0)
    assert_operator base.n, :>=, 15
    assert_operator base.p99_us, :>=, 80_000
    assert_operator base.p99_us, :<, 1_000_000, "microseconds"
    assert_operator base.p50_us, :<, 10_000
  end

  # A mix's baseline probes each member in turn, as often as its weight,
  # while settling itself probes the first path.
  def test_a_mix_s_baseline_probes_every_member_by_weight
    custom = ->(path) { Arena::Plan::Workloads.custom(path) }
    mix = Arena::Plan::Workload.new(name: "routes", path: "/", method: "GET", mix: [[1, custom.call("/")], [2, custom.call("/issues")], [1, custom.call("/news")]])
    assert_equal %w[/ /issues /issues /news], Arena::Scenarios::Settle.members(mix).map(&:path)
    log = []
    Arena::Scenarios::Settle.new(pids: -> { [] }, probe: Probe.new([], log), workload: mix, limit: 0.5, interval: 0.01, ticks: ->(_) { 0 })
      .baseline(seconds: 0.0, least: 8)
    assert_equal %w[/ /issues /issues /news] * 2, log.map { |_, args, _| args[1] }
    assert_equal ["/server"], Arena::Scenarios::Settle.members(Arena::Plan::Workloads.builtin.fetch("server")).map(&:path)
  end

  def test_the_baseline_takes_three_probes_at_least_and_200_at_most
    assert_equal 3, settle([]).baseline(seconds: 0.0, least: 0).n
    assert_equal 200, settle([]).baseline(seconds: 3.0).n
    slow = settle([0.03] * 50).baseline(seconds: 0.0, least: 50, most_s: 0.1)
    assert_includes 3..6, slow.n, "past most_s it stops short of `least`"
  end

  def test_the_baseline_waits_for_an_idle_tree_and_leaves_out_failed_probes
    log = []
    base = settle([:fail, 0, 0], ticks: tree(3, log: log), log: log, pids: -> { [41, 42] }).baseline(seconds: 0.0, least: 0)
    assert_equal 2, base.n, "a failed probe is not a time"
    first_probe = log.index { |e| e.first == :probe }
    assert_equal 4, first_probe, "the first probe follows the first still interval: #{log.first(6).inspect}"
    assert_equal [:ticks, [41, 42]], log.first
    assert_equal [:probe, ["GET", "/server"], {body: nil, headers: {}}], log[first_probe]
    assert_nil settle([:fail] * 200).baseline(seconds: 0.0, least: 0, most_s: 0.0)
  end

  def test_a_busy_tree_is_waited_for
    ticks = tree(5)
    outcome = settle([], ticks: ticks).call(nil)
    assert outcome.settled
    assert_equal 5 * TICK, ticks.call([]), "every busy interval was waited out"
  end

  # After a load: the tree's leftover requests waited out, no probe sent.
  def test_quiet_waits_for_the_tree_alone_and_says_whether_it_went_idle
    log = []
    ticks = tree(4)
    assert settle([], ticks: ticks, log: log).quiet
    assert_equal 4 * TICK, ticks.call([]), "every busy interval was waited out"
    assert_empty log, "no probe"
    refute settle([], limit: 0.1, ticks: tree(10**9)).quiet
  end

  def test_a_tree_that_stays_busy_is_not_settled
    outcome = settle([], limit: 0.1, ticks: tree(10**9)).call(nil)
    refute outcome.settled
    assert_includes 0.1..1.0, outcome.seconds
    assert_equal outcome.seconds.round(3), outcome.seconds
    assert outcome.frozen?
  end

  def test_a_server_still_answering_its_queue_is_not_settled_until_it_is_quick
    base = Arena::Scenarios::Settle::Baseline.new(n: 100, p50_us: 1000, p99_us: 2000)
    outcome = settle([0.05, 0.05, 0]).call(base)
    assert outcome.settled
    assert_operator outcome.seconds, :>=, 0.1
  end

  def test_a_failing_probe_never_settles
    refute settle([:fail] * 1000, limit: 0.1).call(nil).settled
  end

  def test_past_the_limit_the_measurement_is_marked
    base = Arena::Scenarios::Settle::Baseline.new(n: 100, p50_us: 1000, p99_us: 2000)
    outcome = settle([0.2] * 20, limit: 0.3).call(base)
    refute outcome.settled
  end
end

# The CPU-tick source on real processes (Settle::TREE_TICKS, the default):
# slower than the rules above, so mutant does not run them for each change.
class SettleOnRealProcessesTest < Minitest::Test
  Probe = SettleTest::Probe

  # The CPU-idle wait on real processes: four, busy for 0.8 s, then asleep.
  # Settle must wait out the busy part (the fake pids above are an empty
  # tree). Four, and intervals of 0.2 s: CPU time comes in 10 ms ticks, and
  # on a loaded machine each busy process gets only a share of a core.
  BUSY = "t = Process.clock_gettime(Process::CLOCK_MONOTONIC); nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < %s; sleep 30"

  # Without gems or bundler: their boot is CPU too, and on a loaded machine
  # four of them took longer than the settle limit.
  def busy(seconds) = Array.new(4) { Process.spawn({"RUBYOPT" => nil}, RbConfig.ruby, "--disable-gems", "-e", format(BUSY, seconds)) }

  def settle_on(pids, limit:) = Arena::Scenarios::Settle.new(pids: -> { pids }, probe: Probe.new([], nil),
    workload: Arena::Plan::Workloads.builtin.fetch("server"), limit: limit, interval: 0.2)

  def test_a_busy_tree_is_waited_for_until_it_is_idle
    pids = busy(0.8)
    outcome = settle_on(pids, limit: 15).call(nil)
    assert outcome.settled
    assert_operator outcome.seconds, :>=, 0.4, "settled while the processes still burned CPU"
  ensure
    stop(pids)
  end

  # After a load: watched over 50 ms windows, busy processes are still waited out.
  def test_quiet_waits_out_real_busy_processes
    pids = busy(0.8)
    started = Arena::Support::Clock.now
    assert settle_on(pids, limit: 15).quiet
    assert_operator Arena::Support::Clock.now - started, :>=, 0.4, "went quiet while the processes still burned CPU"
  ensure
    stop(pids)
  end

  def test_a_tree_that_stays_busy_is_not_settled
    pids = busy(30)
    refute settle_on(pids, limit: 1.0).call(nil).settled
  ensure
    stop(pids)
  end

  def stop(pids)
    Array(pids).each do |pid|
      Process.kill("KILL", pid)
      Process.wait(pid)
    end
  end
end
