# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # The looks' order and their end (lib/arena/tune/look_phase.rb): your
  # server first, and no look begun that would run past the searches' end.
  class TuneLookPhaseTest < Minitest::Test
    L = Tune::LookPhase

    def test_your_server_is_looked_at_first_the_rest_in_the_plans_order
      machine = Plan::Machine.new(cores: 2)
      servers = %w[agoo falcon puma thin].map { |key| Servers.fetch(key).new(settings: {}, machine: machine) }
      assert_equal %w[puma agoo falcon thin], L.yours_first(servers, "puma").map(&:key)
      assert_equal %w[agoo falcon puma thin], L.yours_first(servers, nil).map(&:key)
      assert_equal %w[agoo falcon puma thin], L.yours_first(servers, "unicorn").map(&:key), "a server not in the plan changes nothing"
    end

    # A budget of 240 s for 10 looks gave each 24 s: one open level each,
    # and every server read unsustained. Each gets at least the least look.
    def test_a_look_gets_at_least_the_least_look
      assert_in_delta 24.0, L.share(240.0, 10, 20.0)
      assert_in_delta 61.0, L.share(240.0, 10, 61.0), 1e-9, "the last looks are cut instead"
      assert_in_delta 240.0, L.share(240.0, 0, 61.0), 1e-9
    end

    def test_a_look_begins_only_when_one_as_long_as_the_others_ends_in_time
      assert L.fits?([], 100.0, now: 99.0), "the first look always begins before the end"
      refute L.fits?([], 100.0, now: 100.0)
      assert L.fits?([40.0, 60.0], 100.0, now: 49.0)
      refute L.fits?([40.0, 60.0], 100.0, now: 50.0), "the mean look (50 s) would end at the end"
    end
  end
end
