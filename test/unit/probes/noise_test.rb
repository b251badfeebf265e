# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The noise figures from two snapshots of /proc, and the verdict on them.
class NoiseTest < Minitest::Test
  Noise = Arena::Probes::Noise
  TCK = Arena::System::Procfs::CLK_TCK

  # total: all CPU ticks so far (1000 at the start, 1000 more after).
  # busy: user time; softirq: time the kernel spent on (our) loopback traffic.
  def snap(t, steal:, busy:, ticks:, load1: 0.5, reaped: 0, softirq: 0)
    total = t.zero? ? 1000 : 2000
    # user nice system idle iowait irq softirq steal
    Noise::Snapshot.new(t: t, cpu: [busy, 0, 0, total - busy - steal - softirq, 0, 0, softirq, steal], ticks: ticks, load1: load1, reaped: reaped)
  end

  # A test run's short processes start and end between the snapshots: no
  # pid holds their CPU, the machine's total does. The engine, which Arena
  # reaps, and the kernel's softirq time on our own traffic are not other.
  def test_processes_that_came_and_went_count_and_the_reaped_engine_does_not
    before = snap(0.0, steal: 0, busy: 0, ticks: {10 => 0, 30 => 0}, reaped: 50)
    # 1 s: the server (10) a core's half, the engine (reaped: 30 ticks) 30%,
    # a neighbour seen (30) 10%, and 40% of a core in processes never seen.
    after = snap(1.0, steal: 0, busy: (TCK * 1.3).round, ticks: {10 => TCK / 2, 30 => TCK / 10}, reaped: 50 + (0.3 * TCK).round, softirq: TCK / 5)
    f = Noise.between(before, after, ours: [10])
    assert_in_delta 50.0, f.other_cpu_pct, 1.0, f.inspect
    assert_in_delta 40.0, f.unseen_cpu_pct, 1.0
    assert_equal "noisy", Arena::Verdicts::Noise.judge(f).word
    # The same without the strangers: only what is ours and what was seen.
    calm = Noise.between(before, snap(1.0, steal: 0, busy: (TCK * 0.9).round, ticks: {10 => TCK / 2, 30 => TCK / 10},
      reaped: 50 + (0.3 * TCK).round, softirq: TCK / 5), ours: [10])
    assert_in_delta 10.0, calm.other_cpu_pct, 1.0, calm.inspect
    assert_equal 0.0, calm.unseen_cpu_pct
    assert_equal "quiet", Arena::Verdicts::Noise.judge(calm).word
  end

  def test_other_processes_cpu_counts_everything_but_ours
    before = snap(0.0, steal: 0, busy: 0, ticks: {10 => 0, 20 => 0, 30 => 5})
    # 2 s later: the server (10) used a core, a neighbour (30) half a core, a
    # process that started during the run (40) a fifth of a core.
    after = snap(2.0, steal: 10, busy: (3.4 * TCK).round, ticks: {10 => 2 * TCK, 20 => 0, 30 => 5 + TCK, 40 => (0.4 * TCK).round})
    f = Noise.between(before, after, ours: [10, 20])
    assert_in_delta 70.0, f.other_cpu_pct, 1.0
    assert_equal 1.0, f.steal_pct
    assert_equal 0.5, f.load_before
    v = Arena::Verdicts::Noise.judge(f)
    assert_equal "noisy", v.word
    assert_match(/other processes took 70% of a core \(limit 20%\)/, v.reason)
  end

  # Arena's own process (its sampler, the noise snapshots, its garbage
  # collector) is ours, not other; its CPU is said apart, since an unpinned
  # Arena takes it from whichever core is free, the server's included.
  def test_arena_s_own_cpu_is_said_apart_and_is_not_other
    before = snap(0.0, steal: 0, busy: 0, ticks: {10 => 0, 77 => 40})
    after = snap(0.5, steal: 0, busy: (0.56 * TCK).round, ticks: {10 => TCK / 2, 77 => 40 + (0.06 * TCK).round})
    f = Noise.between(before, after, ours: [10, 77], own: 77)
    assert_in_delta 12.0, f.arena_cpu_pct, 0.5, f.inspect
    assert_equal 0.0, f.other_cpu_pct
    # A snapshot that did not see Arena (a fixture's /proc) says nothing of it.
    assert_nil Noise.between(before, after, ours: [10, 77], own: 5).arena_cpu_pct
    # Recorded with the measurement, and read back.
    record = Arena::Results::NoiseRecord.new(figures: f, verdict: Arena::Verdicts::Noise.judge(f)).to_record
    assert_in_delta 12.0, record.fetch("arena_cpu_pct"), 0.5
    assert_in_delta 12.0, Arena::Results::NoiseRecord.from_h(record).figures.arena_cpu_pct, 0.5
  end

  def test_a_quiet_machine_and_a_stealing_hypervisor
    before = snap(0.0, steal: 0, busy: 0, ticks: {10 => 0})
    quiet = Noise.between(before, snap(1.0, steal: 1, busy: TCK, ticks: {10 => TCK}), ours: [10])
    assert_equal "quiet", Arena::Verdicts::Noise.judge(quiet).word
    stolen = Noise.between(before, snap(1.0, steal: 80, busy: TCK, ticks: {10 => TCK}), ours: [10])
    assert_equal "noisy", Arena::Verdicts::Noise.judge(stolen).word
    assert_match(/steal 8.0% \(limit 5%\)/, Arena::Verdicts::Noise.judge(stolen).reason)
    refute Arena::Verdicts::Noise.judge(nil).judged?
  end

  def test_the_live_system_can_be_read
    s = Noise.snapshot
    assert_operator s.cpu.size, :>=, 8
    assert s.ticks.key?(Process.pid)
    Process.wait(Process.spawn(RbConfig.ruby, "-e", "t = Process.clock_gettime(Process::CLOCK_MONOTONIC); nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < 0.1"))
    assert_operator Noise.snapshot.reaped, :>, s.reaped, "a reaped child's CPU is in our children's ticks"
  end
end
