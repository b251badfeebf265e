# frozen_string_literal: true

# test: serial (a round disturbed by another file's servers is flagged noisy and left out of the interval)

require_relative "../test_helper"
require_relative "../support/arena_case"

# Rounds folded into one row, run alone: beside another test file's servers
# every round can be flagged noisy, and fewer than 3 clean rounds give no
# interval (as they should), which is not what this file tests.
class RoundsRunTest < Arena::ArenaCase
  # Three rounds (the default; --repeat is its old name): the table shows the
  # median with the half-width of its 95% interval, results.json the interval.
  def test_rounds_fold_into_median_with_interval
    outcome = arena("run", "--servers", "puma:workers=0", "-c", "4", "-w", "0.3", "--repeat", "3", "--workload", "json", "-d", "0.5")
    assert outcome.status.success?, outcome.describe
    assert_equal [1, 2, 3], outcome.measurements.reject { |m| m["rerun"] }.map { |m| m["repeat"] }
    assert_match(/\d[\d.]*k? ±\d/, outcome.stdout)
    interval = outcome.results["intervals"].first
    assert_operator interval["low"], :<=, interval["median"]
    assert_operator interval["high"], :>=, interval["median"]
    assert_equal 3, outcome.results["rounds"].size
  end
end
