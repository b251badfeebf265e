# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

module Arena
  # The confirmation's share of the cores rounds' time (Tune::ConfirmPhase):
  # theirs for your server's best config only while it is in the rounds.
  class TuneConfirmPhaseTest < Minitest::Test
    cover "Arena::Tune::ConfirmPhase*"

    Side = Struct.new(:key)

    def test_the_cores_rounds_count_your_servers_best_only_while_it_is_in_the_rounds
      answer = Side.new("pitchfork:workers=1")
      stay = Side.new("puma:workers=1,threads=5")
      assert_equal 2, Tune::ConfirmPhase.cores_configs([answer, stay], stay.key)
      assert_equal 1, Tune::ConfirmPhase.cores_configs([answer], stay.key), "out of the rounds: the answer's alone"
      assert_equal 1, Tune::ConfirmPhase.cores_configs([answer, stay], nil), "your server not searched"
    end
  end
end
