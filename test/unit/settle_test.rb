# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# Settle's unloaded baseline and wait, with a probe whose latency the test
# chooses (a fake standing in for the HTTP probe; the real one is exercised by
# every integration run).
class SettleTest < Minitest::Test
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

  def test_past_the_limit_the_measurement_is_marked
    base = Arena::Settle::Baseline.new(n: 100, p50_us: 1000, p99_us: 2000)
    outcome = settle([0.2] * 20, limit: 0.3).call(base)
    refute outcome.settled
  end
end
