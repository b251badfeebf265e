# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # The head to head on sessions already up (the searches' winners, faked):
  # every round runs each finalist once in a shuffled order, a finalist that
  # serves nothing is out, and every session is stopped at the end.
  class TuneHeadToHeadTest < Minitest::Test
    cover "Arena::Tune::HeadToHead*"

    Load = Struct.new(:error_pct)
    Figure = Struct.new(:good_rps, :load) do
      def with(**) = self
    end

    # Answers each run with the next figure of its list; records the order of runs.
    class FakeSession
      attr_reader :stopped

      def initialize(key, figures, log)
        @key = key
        @figures = figures.dup
        @log = log
      end

      # A figure is a rate, or [rate, its load's figures].
      def run(_scenario, _workload, load:)
        @log << @key
        rps, figures = @figures.shift
        [Figure.new(rps, figures || Load.new(0.0))]
      end

      def stop = @stopped = true
    end

    class Store
      attr_reader :added

      def initialize = @added = []

      def add_measurement(m) = @added << m
    end

    def finalist(key, figures, log)
      adapter = Servers.fetch(key).new(machine: Plan::Machine.new(cores: 2))
      Tune::HeadToHead::Finalist.new(adapter: adapter, candidate: Tune::Candidate.new(settings: {}, sustained_rps: 1.0, status: "ok", rates: [1.0]),
        session: FakeSession.new(key, figures, log))
    end

    def test_interleaved_rounds_and_a_finalist_out
      log = []
      # Falcon's second round: 16 of 61 requests timed out (a real app's SQLite lock).
      timeouts = Arena::Results::LoadFigures.from_h({"schema" => "arena-load/2", "duration_s" => 12.0,
        "requests" => {"sent" => 61, "completed" => 45}, "errors" => {"total" => 16, "timeout" => 16}})
      finalists = [finalist("puma", [100.0] * 5, log), finalist("falcon", [90.0, [3.75, timeouts]], log), finalist("unicorn", [80.0] * 5, log)]
      store = Store.new
      h2h = Tune::HeadToHead.new(plan: nil, store: store, engine: nil, workload: nil, rounds: 5, seed: 7)
      h2h.define_singleton_method(:load) { nil }
      entries = h2h.call(finalists)
      assert_equal [[100.0] * 5, [90.0, 0.0], [80.0] * 5], entries.map(&:rates)
      assert_equal "16 of 61 requests failed (16 timeout) in head-to-head round 2, over the 1% limit", entries[1].failed
      rounds = [log.first(3), log[3, 3], *log.drop(6).each_slice(2).to_a]
      assert rounds.first(2).all? { |r| r.sort == %w[falcon puma unicorn] }, "each round runs every finalist once: #{log}"
      assert rounds.drop(2).all? { |r| r.sort == %w[puma unicorn] }, "falcon is out after round 2: #{log}"
      assert_equal [Arena::Run::Rounds.order(%w[puma falcon unicorn], round: 1, seed: 7), Arena::Run::Rounds.order(%w[puma falcon unicorn], round: 2, seed: 7)],
        rounds.first(2), "each round in the order Rounds gives from the seed"
      assert_equal 12, store.added.size
      assert finalists.all? { |f| f.session.stopped }, "every session stopped"
      assert_equal 5, h2h.rounds_run(entries)
    end

    # A deadline already passed lets the first round run (its length is not
    # known yet), and no more.
    def test_rounds_stop_at_the_deadline
      log = []
      h2h = Tune::HeadToHead.new(plan: nil, store: Store.new, engine: nil, workload: nil, rounds: 5, deadline: Support::Clock.now - 1)
      h2h.define_singleton_method(:load) { nil }
      entries = h2h.call([finalist("puma", [100.0] * 5, log), finalist("falcon", [90.0] * 5, log)])
      assert_equal [1, 1], entries.map { |e| e.rates.size }
      assert_equal 1, h2h.rounds_run(entries)
    end
  end
end
