# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

module Arena
  # What a tune did not do, as entries {what, why} the phases build and one
  # place puts into words: each sentence as the answer and tune.json say it.
  class TuneNotDoneTest < Minitest::Test
    cover "Arena::Tune::NotDone*"

    NotDone = Tune::NotDone

    def test_each_entry_reads_as_the_answer_says_it
      all = NotDone.not_looked("thin") + NotDone.search_stopped("puma", 7) + NotDone.not_searched("falcon", "slower than 2 others") +
        NotDone.not_finalist("agoo", finalists: 3, rps: 1234.5) + NotDone.head_to_head(2, of: 5) + NotDone.baseline("puma (config/puma.rb)", "no gem")
      assert_equal ["thin: not looked at (no time left)", "puma: its search stopped at the time limit after 7 configs",
        "falcon: not searched beyond its start (slower than 2 others)", "agoo: not in the head to head (3 finalists; it sustained 1,235 req/s)",
        "the head to head ran 2 of 5 rounds", "the baseline puma (config/puma.rb): not installed (no gem)"], all.lines
      assert_equal ["thin", "not looked at (no time left)"], all.entries.first.to_h.values_at(:what, :why)
      assert_equal ["the head to head", "ran 2 of 5 rounds"], all.entries[4].to_h.values_at(:what, :why)
    end

    def test_a_value_that_adding_to_does_not_change
      none = NotDone.new
      one = none + NotDone.not_looked("thin")
      assert none.empty?
      refute one.empty?
      assert one.frozen?
      assert_equal NotDone.not_looked("thin"), one
      refute_equal NotDone.not_looked("puma"), one
      refute_equal one.lines, one
    end

    Round = Struct.new(:number)
    Result = Struct.new(:counted, :flagged, :kept) do
      def flagged_kept? = kept
    end

    def test_the_confirmation_says_too_few_rounds_and_rounds_off_the_machines_speed
      rounds = ->(n) { Array.new(n) { |i| Round.new(i + 1) } }
      assert_empty NotDone.confirmation(Result.new(rounds.call(Tune::Confirmation::MIN_ROUNDS), [], false)).lines
      assert_equal ["the confirmation counted 3 of #{Tune::Confirmation::MIN_ROUNDS} rounds"],
        NotDone.confirmation(Result.new(rounds.call(3), [], false)).lines
      assert_equal ["the confirmation counted 3 of #{Tune::Confirmation::MIN_ROUNDS} rounds",
        "confirmation rounds 2, 5 read the machine >15% off its median speed: kept: too few rounds without them"],
        NotDone.confirmation(Result.new(rounds.call(3), [2, 5], true)).lines
      assert_equal ["confirmation rounds 4 read the machine >15% off its median speed: left out"],
        NotDone.confirmation(Result.new(rounds.call(9), [4], false)).lines
    end
  end
end
