# frozen_string_literal: true

# test: two at most (beside two others its cpus=1 server got 78% of a core, and half a core read 0.74 of it)

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "timeout"

# The envelope on this machine's real cgroups (v1 here; v2 is unit-tested on
# a fake tree): a leak under a small memory limit is OOM-killed, reported and
# survived; a CPU-bound server at half a core is throttled and serves about
# half of what it serves at one; no cgroup is left behind.
class EnvelopeIntegrationTest < Arena::ArenaCase
  def setup
    super
    begin
      @hierarchy = Arena::Launch::Cgroups.detect
    rescue Arena::UsageError => e
      skip e.message
    end
    @before = arena_cgroups
  end

  def teardown
    assert_empty arena_cgroups - @before, "cgroups left behind" if @hierarchy
    super
  end

  def test_a_leak_under_a_small_memory_limit_is_oom_killed_reported_and_survived
    outcome = arena("run", "--servers", "unicorn:workers=2@memory=150MiB puma:workers=0", "--workload", "leak",
      "-c", "4", "-d", "3", "-w", "0.5", "--rounds", "1")
    assert outcome.status.success?, outcome.describe
    bounded, free = outcome.measurements.partition { |m| m["server"].start_with?("unicorn") }.map(&:first)
    assert_equal "unicorn:workers=2,preload=true,timeout=60@memory=150MiB", bounded["server"]
    envelope = bounded.fetch("envelope")
    assert_operator envelope["oom_kills"], :>=, 1, envelope.inspect
    assert_equal envelope["oom_kills"], envelope["oom_at_s"].size
    assert_equal 150 * 1024**2, envelope["memory_bytes"]
    # The kernel charges a page before it finds the limit reached: a fresh-check
    # read the peak one page over (157,290,496). At most a charge batch
    # (64 pages) over.
    assert_operator envelope["peak_bytes"], :<=, 150 * 1024**2 + 64 * 4096, envelope.inspect
    assert_includes bounded.dig("summary", "flags"), "oom-killed"
    # The terminal: one line; report.md: the whole sentence with each kill's time.
    assert_match(/^unicorn\S*@memory=150MiB  OOM-killed  \d+ process(es)? from [\d.]+ s/, outcome.stdout)
    assert_match(/unicorn:.*@memory=150MiB leak steady keep-alive: \d+ process(es)? OOM-killed under 150 MiB at [\d.]+ s/, outcome.report_md)
    # The run went on: the next config was measured, outside any envelope.
    assert_equal "puma:workers=0,threads=5,preload=false", free["server"]
    assert_nil free["envelope"]
    assert_operator free.dig("summary", "good_rps"), :>, 0
    assert_equal({"memory_bytes" => 150 * 1024**2, "label" => "memory=150MiB"}, outcome.results["servers"].find { |x| x["label"].start_with?("unicorn") }["envelope"])
  end

  def test_half_a_core_is_throttled_and_serves_about_half
    # Shared cores: the quota, not the pinning, is what limits the server.
    outcome = arena("run", "--servers", "puma:workers=0,threads=1@cpus=0.5 puma:workers=0,threads=1@cpus=1", "--workload", "pi",
      "-c", "2", "-d", "3", "-w", "0.5", "--cpus", "shared", "--rounds", "1")
    assert outcome.status.success?, outcome.describe
    half, one = outcome.measurements.partition { |m| m["server"].end_with?("@cpus=0.5") }.map(&:first)
    cpu_half, cpu_one = [half, one].map { |m| m.dig("probes", "cpu_pct_mean") }
    assert_operator cpu_half, :<=, 60, "a 0.5 quota holds the server near 50% of a core"
    # A server that reached its quota was throttled, and that was recorded
    # (under heavy contention it may never reach it: then nothing to see).
    if cpu_half >= 40
      assert_operator half.dig("envelope", "throttled_periods"), :>, 0, half["envelope"].inspect
      assert_operator half.dig("envelope", "throttled_s"), :>, 0
    end
    assert_operator half.dig("envelope", "periods"), :>, 20, "3.5 s of 100 ms CFS periods"
    assert_match(/@cpus=0\.5  envelope  throttled [\d.]+% of CPU periods/, outcome.stdout)
    assert_match(/@cpus=0\.5 in its envelope: CPU quota 0\.5 throttled [\d.]+% of CFS periods/, outcome.report_md)
    # Half the goodput needs a machine where the server at cpus=1 had most of
    # a core; on a busy one (eight engineers on two cores) it had a third,
    # and both quotas were above what the scheduler gave: then the halving
    # cannot show, and the test says so instead of passing.
    skip "machine too busy: the server at cpus=1 had #{cpu_one}% of a core" if cpu_one < 70
    rps_ratio = half.dig("summary", "good_rps") / one.dig("summary", "good_rps")
    # CPU-bound work: goodput follows the CPU each server got. At cpus=1 the
    # server gets a core only on a quiet machine (beside two other files it
    # got 70.6%, and half a core then served 0.66 of it, as 49.3 / 70.6
    # says): the ratio is held to the CPU's, which is a half where cpus=1
    # had its core. Noise: two 3 s loads of ~60 ms requests (about 25 and
    # 50 responses).
    cpu_ratio = cpu_half / cpu_one
    assert_in_delta cpu_ratio, rps_ratio, 0.15, "goodput at cpus=0.5 against cpus=1: #{rps_ratio.round(2)} (CPU #{cpu_half}% vs #{cpu_one}%)"
  end

  private

  def arena_cgroups
    parents = [@hierarchy.parent, *Dir.glob("/sys/fs/cgroup/cpu/")].uniq
    parents.flat_map { |dir| Dir.glob(File.join(dir, "arena-*")) }
  end
end
