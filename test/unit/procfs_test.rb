# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

class ProcfsTest < Minitest::Test
  ROOT = File.expand_path("../fixtures/proc", __dir__)

  def test_stat_survives_spaces_and_parentheses_in_the_name
    stat = Arena::Procfs.stat(102, root: ROOT)
    assert_equal "odd) name", stat.comm
    assert_equal 101, stat.ppid
    assert_equal 999, stat.pgrp
    assert_equal [10, 5], [stat.utime, stat.stime]
  end

  def test_smaps_rollup_gives_rss_pss_and_private_as_uss
    memory = Arena::Procfs.memory(101, root: ROOT)
    assert_equal 40_000, memory.rss_kb
    assert_equal 10_100, memory.pss_kb
    assert_equal 10_000, memory.uss_kb
  end

  def test_tree_is_the_group_plus_descendants_that_left_it
    assert_equal [100, 101, 102], Arena::Procfs.tree(100, root: ROOT)
  end

  def test_missing_process_reads_as_nil
    assert_nil Arena::Procfs.stat(424242, root: ROOT)
    assert_nil Arena::Procfs.memory(424242, root: ROOT)
  end

  def test_sampler_sums_pss_over_the_tree_once_per_process
    sampler = Arena::Probes::Sampler.new(pids: -> { Arena::Procfs.tree(100, root: ROOT) }, interval: 10, root: ROOT)
    sampler.start
    summary = sampler.stop
    assert_equal (100 + 101 + 102) * 100, summary.pss_peak_kb
    assert_equal 3 * 40_000, summary.rss_peak_kb
    assert_equal 3, summary.procs_max
  end

  # A throughput round's sampler (interval nil) reads the tree at its start
  # and stop only: no thread wakes during the load.
  def test_a_sampler_without_an_interval_reads_at_start_and_stop_only
    reads = 0
    tree = lambda do
      reads += 1
      Arena::Procfs.tree(100, root: ROOT)
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
end
