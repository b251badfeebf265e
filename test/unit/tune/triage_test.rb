# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # Where the minutes go: every start looked at, the leaders searched, the
  # best four head to head.
  class TuneTriageTest < Minitest::Test
    cover "Arena::Tune::Triage*"

    def look(rps, status: "ok") = Tune::Candidate.new(settings: {}, sustained_rps: rps, status: status, rates: [rps])

    def test_the_best_starts_within_half_the_leaders_are_searched_at_most_three
      looks = {"puma" => look(200.0), "falcon" => look(150.0), "agoo" => look(99.0), "iodine" => look(100.0),
               "uwsgi" => Tune::Candidate.failed({}, "[BUG] Segmentation fault"), "itsi" => nil, "unicorn" => look(180.0)}
      assert_equal %w[puma unicorn falcon], Tune::Triage.searched(looks)
      assert_equal "the 3 best starts were searched", Tune::Triage.why_not("iodine", looks), "100 is half of 200: within"
      assert_equal "its start served 50% of the best start's", Tune::Triage.why_not("agoo", looks)
      assert_equal %w[puma iodine], Tune::Triage.searched(looks.slice("puma", "iodine", "agoo"))
      assert_empty Tune::Triage.searched({"uwsgi" => looks["uwsgi"], "itsi" => nil})
    end

    # The server the app runs is searched whenever its start qualifies,
    # after the leaders, even when its start trails them.
    def test_your_server_is_searched_beside_the_leaders
      looks = {"puma" => look(90.0), "falcon" => look(150.0), "iodine" => look(200.0), "unicorn" => look(180.0), "thin" => look(10.0)}
      assert_equal %w[iodine unicorn falcon puma], Tune::Triage.searched(looks, yours: "puma")
      assert_equal %w[iodine unicorn falcon thin], Tune::Triage.searched(looks, yours: "thin"), "even far behind"
      assert_equal %w[iodine unicorn falcon], Tune::Triage.searched(looks, yours: "unicorn"), "once"
      assert_equal %w[iodine unicorn falcon], Tune::Triage.searched(looks.merge("puma" => look(0.0, status: "unsustained")), yours: "puma")
      assert_equal %w[iodine unicorn falcon], Tune::Triage.searched(looks, yours: "passenger"), "not looked at"
    end

    def test_the_four_best_meet_head_to_head
      bests = {"a" => look(1.0), "b" => look(5.0), "c" => look(3.0), "d" => look(4.0), "e" => look(2.0)}
      assert_equal [%w[b d c e], %w[a]], Tune::Triage.finalists(bests)
    end
  end
end
