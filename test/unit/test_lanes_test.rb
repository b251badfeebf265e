# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/parallel_files"
require_relative "../support/unit_times"

# The suite's own schedule: the unit files dealt into halves of equal time,
# and the integration lane's extra file started only when its CPU fits.
class TestLanesTest < Minitest::Test
  def test_unit_files_are_dealt_into_halves_of_about_equal_time
    known = {"a" => 10.0, "b" => 6.0, "c" => 5.0, "d" => 1.0}
    halves = UnitTimes.halves(known.keys, known)
    assert_equal [%w[a d], %w[b c]], halves
    assert_equal [11.0, 11.0], halves.map { |h| h.sum { |f| known[f] } }
  end

  def test_a_unit_file_never_timed_is_guessed_from_its_size
    file = File.join(__dir__, "test_lanes_test.rb")
    known = {"a" => 1000.0}
    assert_equal [["a"], [file]], UnitTimes.halves([file, "a"], known)
  end

  def test_a_file_starts_beside_the_running_ones_only_when_its_cpu_fits_the_cores
    known = {"rails" => {"s" => 100.0, "cpu" => 60.0}, "db" => {"s" => 100.0, "cpu" => 60.0},
             "heavy" => {"s" => 50.0, "cpu" => 40.0}, "sleepy" => {"s" => 90.0, "cpu" => 27.0},
             "preset" => {"s" => 100.0, "cpu" => 55.0}}
    # 0.66 + 0.66 cores running, of 1.8 (nine tenths of 2): preset (0.605) would make 1.925.
    assert_nil ParallelFiles.beside(%w[preset], %w[rails db], [known], 2)
    queue = %w[heavy sleepy]
    # heavy (0.88) would make 2.2, sleepy (0.33) makes 1.65.
    assert_equal "sleepy", ParallelFiles.beside(queue, %w[rails db], [known], 2)
    assert_equal %w[heavy], queue
    assert_nil ParallelFiles.beside(queue, %w[rails db], [known], 2)
    assert_equal %w[heavy], queue, "a file that does not fit stays queued"
    assert_equal "heavy", ParallelFiles.beside(queue, %w[rails], [known], 2)
  end

  # A file marked `# test: two at most` (capacity_io_test.rb is) is never
  # the third file, and no third starts beside it.
  def test_a_file_marked_two_at_most_is_never_the_third_nor_beside_one
    capacity = "test/integration/capacity_io_test.rb"
    known = {capacity => {"s" => 90.0, "cpu" => 9.0}, "light" => {"s" => 90.0, "cpu" => 9.0}, "db" => {"s" => 100.0, "cpu" => 50.0}}
    Dir.chdir(File.expand_path("../..", __dir__)) do
      queue = [capacity, "light"]
      assert_equal "light", ParallelFiles.beside(queue, %w[db db], [known], 2)
      assert_equal [capacity], queue
      assert_nil ParallelFiles.beside(["light"], [capacity, "db"], [known], 2)
    end
  end

  # Beside a file that runs two at most, the next slot goes to another such
  # file, the longest queued; beside any other, to the longest queued.
  def test_a_free_slot_beside_a_two_at_most_file_takes_another
    capacity = "test/integration/capacity_io_test.rb"
    rails = "test/integration/your_app_rails_test.rb"
    Dir.chdir(File.expand_path("../..", __dir__)) do
      queue = ["db", rails, "light"]
      assert_equal rails, ParallelFiles.take(queue, [capacity])
      assert_equal "db", ParallelFiles.take(queue, [capacity]), "none left that runs two at most"
      assert_equal "light", ParallelFiles.take(queue, ["db"])
      assert_nil ParallelFiles.take(queue, [capacity])
      assert_equal "db", ParallelFiles.take(["db", rails], [])
    end
  end

  def test_a_file_never_timed_counts_a_whole_core_and_the_older_record_is_its_seconds
    known = {"old" => 42.0, "new" => {"s" => 10.0, "cpu" => 5.0}}
    assert_equal 1.0, ParallelFiles.cores_used([known], "old")
    assert_equal 1.0, ParallelFiles.cores_used([known], "unknown_test.rb")
    assert_in_delta 0.55, ParallelFiles.cores_used([known], "new")
    assert_equal 42.0, ParallelFiles.seconds(known, "old")
    assert_equal 10.0, ParallelFiles.seconds(known, "new")
  end

  # Crowded, a file's wall grows and its CPU over it falls: the committed
  # run's rate still counts, or each run would crowd it more than the last.
  def test_a_file_counts_the_larger_of_its_committed_and_last_rate
    committed = {"rails" => {"s" => 100.0, "cpu" => 74.0}}
    crowded = {"rails" => {"s" => 200.0, "cpu" => 95.0}}
    assert_in_delta 1.1 * 0.74, ParallelFiles.cores_used([committed, crowded], "rails")
    assert_in_delta 1.1 * 0.74, ParallelFiles.cores_used([crowded, committed], "rails")
  end
end
