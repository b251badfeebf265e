# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Settle's unloaded baseline and wait, with a probe whose latency the test
# chooses (a fake standing in for the HTTP probe; the real one is exercised by
# every integration run).
class SettleTest < Minitest::Test
  cover "Arena::Settle*"

  Probe = Struct.new(:delays) do
    def request(*, **)
      sleep delays.shift || 0
    end
  end

  def settle(delays, limit: 2) = Arena::Settle.new(pids: -> { [] }, probe: Probe.new(delays), workload: Arena::Workloads.builtin.fetch("server"), limit: limit, interval: 0.01)

  # A mix whose slow member is a quarter of the draws: fast probes alone
  # would set a 100 ms SLO that the mix's own sleeps break.
  def test_the_baseline_goes_on_until_a_mix_shows_its_slow_member
    delays = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.08]
    base = settle(delays).baseline(seconds: 0.0)
    assert_operator base.n, :>=, 15
    assert_operator base.p99_us, :>=, 80_000
    assert_operator base.p50_us, :<, 10_000
  end

  def test_a_server_still_answering_its_queue_is_not_settled_until_it_is_quick
    base = Arena::Settle::Baseline.new(n: 100, p50_us: 1000, p99_us: 2000)
    outcome = settle([0.05, 0.05, 0]).call(base)
    assert outcome.settled
    assert_operator outcome.seconds, :>=, 0.1
  end

  # The CPU-idle wait on real processes: four, busy for 0.8 s, then asleep.
  # Settle must wait out the busy part (the fake pids above are an empty
  # tree). Four, and intervals of 0.2 s: CPU time comes in 10 ms ticks, and
  # on a loaded machine each busy process gets only a share of a core.
  BUSY = "t = Process.clock_gettime(Process::CLOCK_MONOTONIC); nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < %s; sleep 30"

  def busy(seconds) = Array.new(4) { Process.spawn(RbConfig.ruby, "-e", format(BUSY, seconds)) }

  def settle_on(pids, limit:) = Arena::Settle.new(pids: -> { pids }, probe: Probe.new([]),
    workload: Arena::Workloads.builtin.fetch("server"), limit: limit, interval: 0.2)

  def test_a_busy_tree_is_waited_for_until_it_is_idle
    pids = busy(0.8)
    outcome = settle_on(pids, limit: 5).call(nil)
    assert outcome.settled
    assert_operator outcome.seconds, :>=, 0.4, "settled while the processes still burned CPU"
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

  def test_past_the_limit_the_measurement_is_marked
    base = Arena::Settle::Baseline.new(n: 100, p50_us: 1000, p99_us: 2000)
    outcome = settle([0.2] * 20, limit: 0.3).call(base)
    refute outcome.settled
  end
end
