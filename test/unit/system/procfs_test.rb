# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

class ProcfsTest < Minitest::Test
  ROOT = File.expand_path("../../fixtures/proc", __dir__)

  def test_stat_survives_spaces_and_parentheses_in_the_name
    stat = Arena::System::Procfs.stat(102, root: ROOT)
    assert_equal "odd) name", stat.comm
    assert_equal 101, stat.ppid
    assert_equal 999, stat.pgrp
    assert_equal [10, 5], [stat.utime, stat.stime]
  end

  def test_smaps_rollup_gives_rss_pss_and_private_as_uss
    memory = Arena::System::Procfs.memory(101, root: ROOT)
    assert_equal 40_000, memory.rss_kb
    assert_equal 10_100, memory.pss_kb
    assert_equal 10_000, memory.uss_kb
  end

  def test_tree_is_the_group_plus_descendants_that_left_it
    assert_equal [100, 101, 102], Arena::System::Procfs.tree(100, root: ROOT)
  end

  def test_missing_process_reads_as_nil
    assert_nil Arena::System::Procfs.stat(424242, root: ROOT)
    assert_nil Arena::System::Procfs.memory(424242, root: ROOT)
  end

  def test_sampler_sums_pss_over_the_tree_once_per_process
    sampler = Arena::Probes::Sampler.new(pids: -> { Arena::System::Procfs.tree(100, root: ROOT) }, interval: 10, root: ROOT)
    sampler.start
    memory = sampler.stop
    assert_kind_of Arena::Results::Memory, memory, "the measurement's value itself"
    assert memory.frozen?
    assert_equal (100 + 101 + 102) * 100, memory.pss_peak_kb
    assert_equal 3 * 40_000, memory.rss_peak_kb
    assert_equal 3, memory.procs_max
    assert_equal [Arena::Results::MemorySample], memory.samples.map(&:class).uniq
  end

  # A throughput round's sampler (interval nil) reads the tree at its start
  # and stop only: no thread wakes during the load.
  def test_a_sampler_without_an_interval_reads_at_start_and_stop_only
    reads = 0
    tree = lambda do
      reads += 1
      Arena::System::Procfs.tree(100, root: ROOT)
    end
    sampler = Arena::Probes::Sampler.new(pids: tree, interval: nil, root: ROOT)
    threads = Thread.list.size
    sampler.start
    assert_equal threads, Thread.list.size, "no sampling thread"
    sleep 0.05
    summary = sampler.stop
    assert_equal 2, reads
    assert_equal 2, summary.samples.size
    assert_equal (100 + 101 + 102) * 100, summary.pss_peak_kb
  end

  # A fake /proc: Iodine's master (100) and two workers (101, 102) on port
  # 8080 (1F90). The kernel handed 101 two connections (one over IPv6), 102
  # one; 102 also holds a connection it made to port 5432, one on 8080 that is
  # closing (06 TIME_WAIT), and the master the listener (0A). The client's end
  # of a connection (remote port 8080, held by the engine) is no server's.
  def fake_proc(dir)
    tcp = <<~TCP
      sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
       0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 500 1 0 100 0 0 10 0
       1: 0100007F:1F90 0100007F:A001 01 00000000:00000000 00:00000000 00000000  1000        0 501 1 0 20 4 30 10 -1
       2: 0100007F:1F90 0100007F:A002 01 00000000:00000000 00:00000000 00000000  1000        0 503 1 0 20 4 30 10 -1
       3: 0100007F:A003 0100007F:1538 01 00000000:00000000 00:00000000 00000000  1000        0 504 1 0 20 4 30 10 -1
       4: 0100007F:1F90 0100007F:A004 06 00000000:00000000 00:00000000 00000000  1000        0 505 1 0 20 4 30 10 -1
       5: 0100007F:A005 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 506 1 0 20 4 30 10 -1
       6: 0100007F:1F91 0100007F:A006 01 00000000:00000000 00:00000000 00000000  1000        0 507 1 0 20 4 30 10 -1
    TCP
    tcp6 = <<~TCP
      sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
       0: 00000000000000000000000001000000:1F90 00000000000000000000000001000000:A007 01 00000000:00000000 00:00000000 00000000  1000        0 502 1 0 20 4 30 10 -1
    TCP
    FileUtils.mkdir_p(File.join(dir, "net"))
    File.write(File.join(dir, "net/tcp"), tcp)
    File.write(File.join(dir, "net/tcp6"), tcp6)
    {100 => [500], 101 => [501, 502, 502, 507], 102 => [503, 504, 505], 103 => [506]}.each do |pid, inodes|
      FileUtils.mkdir_p(File.join(dir, pid.to_s, "fd"))
      inodes.each_with_index { |inode, fd| File.symlink("socket:[#{inode}]", File.join(dir, pid.to_s, "fd", fd.to_s)) }
      File.symlink(File::NULL, File.join(dir, pid.to_s, "fd", "9"))
    end
  end

  def test_established_counts_each_processs_connections_on_the_port
    Dir.mktmpdir do |dir|
      fake_proc(dir)
      assert_equal({100 => 0, 101 => 2, 102 => 1}, Arena::System::Procfs.established([100, 101, 102], 8080, root: dir))
      assert_equal({101 => 1}, Arena::System::Procfs.established([101], 8081, root: dir), "another port's")
      assert_equal({103 => 0, 4242 => 0}, Arena::System::Procfs.established([103, 4242], 8080, root: dir), "a client's end; a process gone")
      File.delete(File.join(dir, "net/tcp6"))
      assert_equal({101 => 1}, Arena::System::Procfs.established([101], 8080, root: dir), "no IPv6 table")
    end
  end

  # Read once, after its delay; nil when the load ended before.
  def test_the_spread_probe_reads_once_after_its_delay
    Dir.mktmpdir do |dir|
      fake_proc(dir)
      probe = Arena::Probes::Spread.new(pids: -> { [100, 101, 102] }, port: 8080, delay: 0, root: dir).start
      sleep 0.05
      assert_equal({100 => 0, 101 => 2, 102 => 1}, probe.stop)
      late = Arena::Probes::Spread.new(pids: -> { [101] }, port: 8080, delay: 10, root: dir).start
      threads = Thread.list.size
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      assert_nil late.stop
      assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 1, "not waited for"
      assert_equal threads - 1, Thread.list.size, "its thread is stopped"
      failing = Arena::Probes::Spread.new(pids: -> { raise "gone" }, port: 8080, delay: 0, root: dir).start
      sleep 0.05
      assert_nil failing.stop
    end
  end
end
