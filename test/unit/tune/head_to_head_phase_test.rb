# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # The head to head's phase (lib/arena/tune/head_to_head_phase.rb): no
  # round begins once the confirmation's reserve has: a slow app's looks ran
  # over, and its one late round cost the confirmation its rounds.
  class TuneHeadToHeadPhaseTest < Minitest::Test
    Finalist = Struct.new(:adapter, :candidate, :session, :installation, keyword_init: true)

    class Session
      attr_reader :stopped

      def stop = @stopped = true
    end

    def finalists
      machine = Plan::Machine.new(cores: 2)
      {"falcon" => {"count" => 1}, "thin" => {"servers" => 1}}.map do |key, settings|
        Finalist.new(adapter: Servers.fetch(key).new(settings: settings, machine: machine), session: Session.new,
          candidate: Tune::Candidate.new(settings: settings, sustained_rps: 30.0, pss_kb: 1024, p99_ms: 80.0, status: "ok", rates: [1.0]))
      end
    end

    def test_past_its_deadline_no_finalist_meets_and_each_is_stopped
      all = finalists
      entries, not_done = Tune::HeadToHeadPhase.new(nil).send(:head_to_head, all, Support::Clock.now - 1)
      assert_equal [%w[falcon thin], [[], []]], [entries.map(&:key), entries.map(&:rates)]
      assert all.all? { |f| f.session.stopped }, "the searches' servers stopped before the confirmation"
      assert_equal ["the head to head ran 0 of #{Tune::Estimate::HEAD_TO_HEAD_ROUNDS} rounds"], not_done.lines
    end

    def test_a_lone_finalist_meets_no_one_and_says_nothing
      lone = finalists.first(1)
      entries, not_done = Tune::HeadToHeadPhase.new(nil).send(:head_to_head, lone, Support::Clock.now - 1)
      assert_equal [["falcon"], []], [entries.map(&:key), not_done.lines]
    end
  end
end
