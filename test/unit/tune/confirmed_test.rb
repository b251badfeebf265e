# frozen_string_literal: true

require "test_helper"
require "support/confirmation_figures"

module Arena
  # The confirmation rounds' verdict on figures of known truth: the margin
  # and the gain over the baseline from these rounds alone (flagged rounds
  # left out), "equivalent within ±3%" then memory, and "keep what you run".
  class TuneConfirmedTest < Minitest::Test
    cover "Arena::Tune::Confirmed*"
    cover "Arena::Tune::AnswerWords*"
    include ConfirmationFigures

    # The machine's drift, shared by every config in a round.
    DRIFT = [1.0, 0.8, 1.2, 0.9, 1.1, 0.7, 1.05, 0.95, 1.15, 0.85].freeze
    OWN = [1.01, 0.99, 1.02, 0.985, 1.0, 1.005, 0.995, 1.01, 0.99, 1.0].freeze

    def side(role, key, settings, level, pss_mib: 100, own: OWN)
      rounds = (1..DRIFT.size)
      Side.new(role: role, adapter: adapter(key, settings), installation: nil, rps: rounds.to_h { |n| [n, level * DRIFT[n - 1] * own[n - 1]] },
        p99_ms: rounds.to_h { |n| [n, 10.0] }, pss_kb: rounds.to_h { |n| [n, pss_mib * 1024] })
    end

    def result(sides, slow: [])
      rounds = (1..DRIFT.size).map do |n|
        ms = slow.include?(n) ? 15.0 : 10.0
        Round.new(number: n, order: sides.map(&:key), speeds: sides.to_h { |s| [s.key, Reading.new(cpu_ms: ms / 2, memory_ms: ms / 2)] })
      end
      flagged, median = Tune::Confirmation.flagged(rounds)
      Result.new(sides: sides, rounds: rounds, flagged: flagged, median_ms: median, stopped: "precise")
    end

    def test_the_gain_over_the_baseline_and_the_margin_come_from_these_rounds
      answer = side("answer", "iodine", {"workers" => 1, "threads" => 4}, 1310)
      runner = side("runner-up", "falcon", {"count" => 1}, 1200, own: OWN.reverse)
      base = side("baseline", "puma", {"threads" => 3, "workers" => 0}, 1000, own: OWN.rotate(3))
      c = Tune::Confirmed.decide(result([answer, runner, base]), baseline_key: base.key)
      assert_equal answer, c.pick
      assert_equal runner, c.other
      refute c.keep
      ratio, interval = c.gain_ratio
      assert_in_delta 1.31, ratio, 0.02
      assert_operator interval[0], :<, ratio
      assert_equal 10, c.rounds
      line = Tune::AnswerWords.gain(c, baseline)
      assert_match(/\A\+3\d% over your config\/puma.rb \(puma, 3 threads, 1 process\): 1\.3\d× \(1\.\d\d–1\.\d\d\)\z/, line)
      default = baseline(source: "the Rails default")
      assert_match(/\A\+3\d% over the Rails default \(puma, 3 threads, 1 process\): /, Tune::AnswerWords.gain(c, default))
      assert_match(/\A\+\d\.\d+% over falcon count=1: 1\.0\d× \(.*\), ahead \(10 rounds\)\z/, Tune::AnswerWords.margin(c))
    end

    def test_a_round_read_slow_is_left_out_of_the_figures
      answer = side("answer", "iodine", {"workers" => 1, "threads" => 4}, 1100)
      # Round 3 read the machine 50% slow: its figures (the runner-up's far off) are not counted.
      runner = side("runner-up", "falcon", {"count" => 1}, 1000)
      runner.rps[3] = 5000.0
      r = result([answer, runner], slow: [3])
      assert_equal [3], r.flagged
      c = Tune::Confirmed.decide(r, baseline_key: nil)
      assert_equal [answer, 9], [c.pick, c.rounds]
      assert_in_delta 1.1, c.margin_ratio[0], 0.01
      assert_equal [1.0, 1.0], c.speed_range, "the counted rounds' speed"
      # Too few rounds left without the flagged ones: every round counts, said so.
      r = result([answer, runner], slow: [1, 2, 3])
      assert_equal [[1, 2, 3], 10], [r.flagged, r.counted.size]
      assert r.flagged_kept?
    end

    def test_equivalent_configs_are_picked_by_memory
      answer = side("answer", "iodine", {"workers" => 1, "threads" => 4}, 1000, pss_mib: 200)
      runner = side("runner-up", "falcon", {"count" => 1}, 1000, pss_mib: 80, own: OWN.map { |x| x * 1.001 })
      c = Tune::Confirmed.decide(result([answer, runner]), baseline_key: nil)
      assert_equal runner, c.pick, "the same goodput: the lighter one"
      assert_match(/equivalent within ±3%|picked on memory/, Tune::AnswerWords.margin(c))
    end

    def test_keep_what_you_run_when_the_baseline_ties_or_wins
      answer = side("answer", "iodine", {"workers" => 1, "threads" => 4}, 1000)
      base = side("baseline", "puma", {"threads" => 3, "workers" => 0}, 1000, own: OWN.map { |x| x * 1.002 })
      c = Tune::Confirmed.decide(result([answer, base]), baseline_key: base.key)
      assert c.keep
      assert_match(/\Akeep what you run: your config\/puma.rb \(puma, 3 threads, 1 process\); iodine workers=1 threads=4 reads 1\.00× \(1\.00–1\.00\) of it, equivalent within ±3%\z/,
        Tune::AnswerWords.gain(c, baseline))
      faster = side("baseline", "puma", {"threads" => 3, "workers" => 0}, 1200, own: OWN.rotate(2))
      c = Tune::Confirmed.decide(result([answer, faster]), baseline_key: faster.key)
      assert c.keep
      assert_match(/\Akeep what you run: your config\/puma.rb \(puma, 3 threads, 1 process\); it serves 1\.2\d× \(1\.\d\d–1\.\d\d\) the goodput of iodine workers=1 threads=4\z/,
        Tune::AnswerWords.gain(c, baseline))
    end

    # Time ran out after two rounds (a short --max-time): no ratio, and the
    # answer says the rounds could not compare, instead of Arena failing.
    def test_two_rounds_give_no_ratio_and_the_words_say_so
      two = ->(role, key, settings, level) do
        Side.new(role: role, adapter: adapter(key, settings), installation: nil, rps: {1 => level, 2 => level * 1.1},
          p99_ms: {1 => 10.0, 2 => 10.0}, pss_kb: {1 => 102_400, 2 => 102_400})
      end
      answer = two.call("answer", "iodine", {"workers" => 1, "threads" => 4}, 1000)
      base = two.call("baseline", "puma", {"threads" => 3, "workers" => 0}, 900)
      rounds = [1, 2].map { |n| Round.new(number: n, order: [answer.key, base.key], speeds: {}) }
      c = Tune::Confirmed.decide(Result.new(sides: [answer, base], rounds: rounds, flagged: [], median_ms: nil, stopped: "time"),
        baseline_key: base.key)
      assert_nil c.gain_ratio
      assert_equal "iodine workers=1 threads=4: the rounds could not compare it (2 paired rounds)", Tune::AnswerWords.keep_reason(c)
    end

    def test_the_baseline_that_is_the_answer
      answer = side("answer", "puma", {"threads" => 3, "workers" => 0}, 1000)
      runner = side("runner-up", "falcon", {"count" => 1}, 900)
      c = Tune::Confirmed.decide(result([answer, runner]), baseline_key: answer.key)
      assert c.keep
      assert_equal "keep what you run: your config/puma.rb (puma, 3 threads, 1 process) is the best config found", Tune::AnswerWords.gain(c, baseline)
    end

    def test_narrow_when_every_ratio_is_within_the_target
      answer = side("answer", "iodine", {"workers" => 1, "threads" => 4}, 1100)
      runner = side("runner-up", "falcon", {"count" => 1}, 1000)
      assert Tune::Confirmed.narrow?(result([answer, runner]), target_pct: 5.0)
      wild = side("runner-up", "falcon", {"count" => 1}, 1000, own: [1.3, 0.7, 1.2, 0.8, 1.25, 0.75, 1.1, 0.9, 1.3, 0.7])
      refute Tune::Confirmed.narrow?(result([answer, wild]), target_pct: 5.0)
    end

    def test_three_significant_figures_and_the_measured_on_line
      w = Tune::AnswerWords
      assert_equal %w[1230 654 8.12 0.0123 1.31 0], [1234.5, 654.2, 8.123, 0.012345, 1.3149, 0].map { |x| w.sig3(x) }
      iodine = adapter("iodine", {"workers" => 1, "threads" => 4})
      assert_equal "on 1 of 2 cores, 3.81 GiB: 1 process per core, 4 threads each (not measured past 1 core)",
        w.measured_on(iodine, server_cores: 1, cores: 2, memory_kb: 4_000_000)
    end
  end
end
