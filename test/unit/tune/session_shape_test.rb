# frozen_string_literal: true

require_relative "../../test_helper"

module Arena
  # Tune::Session only sequences the phases: it stays short, holds only what
  # the command gave it, and no phase's state lives in it; a Trial is made
  # in one place (Tune::Context#trial).
  class TuneSessionShapeTest < Minitest::Test
    LIB = File.expand_path("../../../lib/arena", __dir__)

    def test_the_session_sequences_and_holds_only_what_the_command_gave_it
      text = File.read(File.join(LIB, "tune/session.rb"))
      assert_operator text.lines.size, :<=, 120
      assert_equal %w[@err @options @out @plan], text.scan(/@[a-z_]+/).uniq.sort
    end

    def test_a_trial_is_made_in_one_place
      makers = Dir[File.join(LIB, "**/*.rb")].select { |f| File.read(f).include?("Trial.new(") }
      assert_equal ["tune/context.rb"], makers.map { |f| f.delete_prefix("#{LIB}/") }
    end
  end
end
