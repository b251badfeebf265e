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

  # The CPU-idle wait on a real process: busy for 0.4 s, then asleep. Settle
  # must wait out the busy part (the fake pids above are an empty tree).
  def test_a_busy_tree_is_waited_for_until_it_is_idle
    pid = Process.spawn(RbConfig.ruby, "-e", "t = Process.clock_gettime(Process::CLOCK_MONOTONIC); " \
      "nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < 0.4; sleep 10")
    settle = Arena::Settle.new(pids: -> { [pid] }, probe: Probe.new([]), workload: Arena::Workloads.builtin.fetch("server"),
      limit: 3, interval: 0.05)
    outcome = settle.call(nil)
    assert outcome.settled
    assert_operator outcome.seconds, :>=, 0.25, "settled while the process still burned CPU"
  ensure
    Process.kill("KILL", pid) if pid
    Process.wait(pid) if pid
  end

  def test_a_tree_that_stays_busy_is_not_settled
    pid = Process.spawn(RbConfig.ruby, "-e", "loop {}")
    settle = Arena::Settle.new(pids: -> { [pid] }, probe: Probe.new([]), workload: Arena::Workloads.builtin.fetch("server"),
      limit: 0.4, interval: 0.05)
    refute settle.call(nil).settled
  ensure
    Process.kill("KILL", pid) if pid
    Process.wait(pid) if pid
  end

  def test_past_the_limit_the_measurement_is_marked
    base = Arena::Settle::Baseline.new(n: 100, p50_us: 1000, p99_us: 2000)
    outcome = settle([0.2] * 20, limit: 0.3).call(base)
    refute outcome.settled
  end
end
