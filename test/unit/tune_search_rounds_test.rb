# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"
require "timeout"

module Arena
  # The search's rules on scripted figures: each settings point answers the
  # next rate of its own list (the last one again when the list runs out),
  # so every branch of the rounds-3 judgement, the noise, the deadline and
  # the outcome can be driven to a known answer, and the order of the
  # measurements checked call by call.
  class TuneSearchRoundsTest < Minitest::Test
    cover "Arena::Tune::Search*"

    class FakeClock
      attr_accessor :now

      def initialize = @now = 0.0
    end

    # rates: {workers => [figures in the order measured]}; status and
    # resolution per point; each measurement takes `seconds` on the clock.
    class Script
      attr_reader :calls

      def initialize(rates, clock: FakeClock.new, seconds: 10.0, status: {}, resolution: 0.01, pss_mib: ->(w) { 100 + 10 * w }, interrupt_after: nil)
        @rates = rates.transform_values(&:dup)
        @clock = clock
        @seconds = seconds
        @status = status.transform_values { |v| v.is_a?(Array) ? v.dup : v }
        @resolution = resolution
        @pss_mib = pss_mib
        @interrupt_after = interrupt_after
        @calls = []
      end

      def call(settings)
        raise Interrupt if @interrupt_after && @calls.size >= @interrupt_after
        w = settings.fetch("workers")
        @calls << w
        @clock.now += @seconds.to_f
        list = @rates.fetch(w)
        rate = ((list.size > 1) ? list.shift : list.first).to_f
        status = @status.fetch(w) { "ok" }
        status = (status.size > 1) ? status.shift : status.first if status.is_a?(Array)
        Tune::Candidate.new(settings: settings, label: "w#{w}", sustained_rps: rate, closed_rps: rate, pss_kb: @pss_mib.call(w)&.*(1024),
          status: status, why: (status == "ok") ? nil : "#{status} in its measurement #{@calls.count(w)}", resolution: @resolution,
          elapsed_s: @seconds, rates: [rate]).freeze
      end
    end

    def space(min: 1, max: 8, start: 2)
      Tune::Space.new(dimensions: [Tune::Dimension.new(name: "workers", min: min, max: max)], start: {"workers" => start})
    end

    # A search must end: on scripted figures it takes milliseconds, so one
    # still going after 5 s has lost its way (a loop that never ends fails
    # here, not at mutant's timeout).
    def search(script, rounds: 3, min_noise: 0.01, space: self.space, **kw)
      Timeout.timeout(5) { Tune::Search.new(space: space, evaluate: script, min_noise: min_noise, rounds: rounds, **kw).call }
    end

    def candidate(label, rates, status: "ok", pss_mib: 100)
      Tune::Candidate.new(settings: {"workers" => label.delete("w").to_i}, label: label, sustained_rps: rates.sum / rates.size,
        rates: rates, status: status, pss_kb: pss_mib * 1024).freeze
    end

    def outcome(best, runner_up, noise: 0.02, stopped: "converged")
      Tune::Search::Outcome.new(candidates: [best, runner_up].compact, best: best, runner_up: runner_up, noise: noise, stopped: stopped)
    end

    # Worked by hand: the start (2) three times (mean 100, spread 2%: the
    # noise); 4 leads at 120, is measured twice more and the test says the
    # lead is real; 8 likewise (130); up from 8 is the bound; down is 4,
    # already measured (120: no gain); refining tries 6 (125), then in the
    # next round 7 (128): neither leads the best, so neither is repeated.
    def test_a_real_gain_is_confirmed_then_taken
      script = Script.new({2 => [100, 101, 99], 4 => [120, 121, 119], 8 => [130, 131, 129], 6 => [125], 7 => [128]})
      o = search(script)
      assert_equal [2, 2, 2, 4, 4, 4, 8, 8, 8, 6, 7], script.calls
      assert_equal({"workers" => 8}, o.best.settings)
      assert_equal [130, 131, 129], o.best.rates
      assert_equal({"workers" => 7}, o.runner_up.settings)
      assert_equal [[2, 3], [4, 3], [8, 3], [6, 1], [7, 1]], o.candidates.map { |c| [c.settings["workers"], c.rates.size] }
      assert_equal 0.02, o.noise
      assert_equal "converged", o.stopped
      refute o.interrupted?
      assert_nil o.difference, "the runner-up has one figure: no test"
      assert_in_delta 2.0 / 128, o.margin, 1e-12
      assert o.within_noise?, "1.6% lead, 2% noise"
    end

    # 4 leads on its first figure (105 against a mean of 100) but not on
    # three (105, 97, 99): no real gain, the start stays the best although
    # 4's mean (100.33) is higher; 4 is the runner-up and the test on three
    # figures each says they are not distinguishable.
    def test_a_lead_on_one_figure_that_the_test_does_not_confirm_is_not_taken
      script = Script.new({2 => [100, 101, 99], 4 => [105, 97, 99], 1 => [90], 3 => [99]})
      o = search(script)
      assert_equal [2, 2, 2, 4, 4, 4, 1, 3], script.calls
      assert_equal({"workers" => 2}, o.best.settings)
      assert_equal({"workers" => 4}, o.runner_up.settings)
      assert_in_delta 100.3, o.runner_up.sustained_rps, 1e-9
      d = o.difference
      assert d.measured?
      refute d.significant?
      assert_match(/\Anot distinguishable here: w2 is -0\.3% against w4 /, d.reason)
      assert o.within_noise?
      assert_in_delta (100.0 - 100.3) / 100.3, o.margin, 1e-12, "the runner-up's mean is higher: the margin says so"
    end

    # With more rounds (5) a lucky first figure of the best is outvoted: 4
    # (first 101 against the start's single figure 100) is confirmed
    # against a start whose next figures are 150: the difference is
    # significant, but negative, so 4 is no gain.
    def test_a_significant_difference_the_wrong_way_is_no_gain
      script = Script.new({2 => [100, 150], 4 => [101], 1 => [50], 3 => [60]})
      o = search(script, rounds: 5, repeat_start: false)
      assert_equal [2, 4, 2, 2, 2, 2, 4, 4, 4, 4, 1, 3], script.calls
      assert_equal({"workers" => 2}, o.best.settings)
      assert_equal [100, 150, 150, 150, 150], o.best.rates
      d = o.difference
      assert d.significant?, d.reason
      assert_operator d.estimate_pct, :>, 0, "the best above the runner-up"
      refute o.within_noise?
    end

    # The confirmed best is the best from then on: a later lead is tested
    # against its figures, it is not measured again. From the start (100
    # once, then 150 x 4 when 4 leads it): 4 and 1 gain nothing; refining
    # tries 3 (200: confirmed, real). Round two from 3: 6 leads on its first
    # figure (210) and is confirmed (186 on five: no gain), 3 is not
    # measured again; down is 1 (measured); no midpoint is left.
    def test_the_confirmed_best_is_not_measured_again
      script = Script.new({2 => [100, 150], 4 => [101], 1 => [50], 3 => [200, 201, 199], 6 => [210, 180]})
      o = search(script, rounds: 5, repeat_start: false)
      assert_equal [2, 4, 2, 2, 2, 2, 4, 4, 4, 4, 1, 3, 3, 3, 3, 3, 6, 6, 6, 6, 6], script.calls
      assert_equal({"workers" => 3}, o.best.settings)
      assert_equal [200, 201, 199, 199, 199], o.best.rates
      assert_equal({"workers" => 6}, o.runner_up.settings)
      assert_in_delta 186.0, o.runner_up.sustained_rps, 1e-9
    end

    # A start that does not qualify is not repeated (there is no noise to
    # measure); the first qualifying candidate is measured to its rounds,
    # as the start would have been, and becomes the best (there is nothing
    # to test it against).
    def test_after_an_unsustained_start_the_first_qualifying_candidate_is_the_best
      script = Script.new({2 => [0.0], 4 => [90], 8 => [80], 6 => [85], 5 => [70], 3 => [0.0]},
        status: {2 => "unsustained", 3 => "unsustained"}, resolution: 0.5)
      o = search(script)
      # Up: 4 (three times: the best), 8 (less); down: 2 (measured);
      # refining: 3 (unsustained) and 6 (less); round two: the midpoint 5.
      assert_equal [2, 4, 4, 4, 8, 3, 6, 5], script.calls
      assert_equal({"workers" => 4}, o.best.settings)
      assert_equal [90.0] * 3, o.best.rates
      assert_equal({"workers" => 6}, o.runner_up.settings)
      assert_equal 0.01, o.noise, "the resolution of a start that found no rate is no floor"
      # The first that qualifies fails its second measurement: not the best; the next one is.
      script = Script.new({2 => [0.0], 4 => [90], 1 => [80]}, status: {2 => "unsustained", 4 => ["ok", "oom-killed"]})
      o = search(script)
      assert_equal [2, 4, 4, 1, 1, 1], script.calls
      assert_equal [{"workers" => 1}, [80.0] * 3, nil], [o.best.settings, o.best.rates, o.runner_up]
    end

    # Without rounds likewise: nothing that does not qualify is the best,
    # and the first that does is (on its one figure).
    def test_without_rounds_only_a_qualifying_candidate_is_the_best
      script = Script.new({2 => [0.0], 4 => [0.0], 1 => [0.0], 3 => [0.0]}, status: {2 => "unsustained", 4 => "failed", 1 => "unsustained", 3 => "unsustained"})
      o = search(script, rounds: 1)
      assert_equal [2, 4, 1, 3], script.calls, "the search stays at the start: no step leads it"
      assert_nil o.best
      script = Script.new({2 => [0.0], 4 => [90], 8 => [80], 1 => [0.0], 3 => [70], 6 => [85], 5 => [60]}, status: {2 => "unsustained", 1 => "unsustained"})
      o = search(script, rounds: 1)
      assert_equal [2, 4, 8, 3, 6, 5], script.calls
      assert_equal [{"workers" => 4}, [90.0]], [o.best.settings, o.best.rates]
    end

    # A lead that fails only its last repeat (three figures, significantly
    # ahead) is not taken either.
    def test_a_lead_that_fails_its_last_repeat_is_not_taken
      script = Script.new({2 => [100, 101, 99], 4 => [120, 121, 119], 1 => [90], 3 => [95]}, status: {4 => ["ok", "ok", "oom-killed"]})
      o = search(script)
      assert_equal [2, 2, 2, 4, 4, 4, 1, 3], script.calls
      assert_equal({"workers" => 2}, o.best.settings)
      assert_equal "oom-killed", o.candidates.find { |c| c.settings == {"workers" => 4} }.status
    end

    # A bisection that reported no resolution: no floor from it.
    def test_a_start_without_a_resolution
      o = search(Script.new({2 => [100, 104]}, resolution: nil), rounds: 1, space: space(min: 2, max: 2))
      assert_in_delta 0.0392, o.noise, 1e-12
    end

    # arena tune (rounds 3) once kept a config that was OOM-killed in one
    # of its repeats as "ok": a repeat that does not qualify disqualifies it,
    # and it is not measured again after the failure.
    def test_a_lead_that_fails_a_repeat_is_not_taken
      script = Script.new({2 => [100, 101, 99], 4 => [120, 118], 1 => [90], 3 => [95]}, status: {4 => ["ok", "oom-killed"]})
      o = search(script)
      assert_equal [2, 2, 2, 4, 4, 1, 3], script.calls
      assert_equal({"workers" => 2}, o.best.settings)
      four = o.candidates.find { |c| c.settings == {"workers" => 4} }
      assert_equal ["oom-killed", "oom-killed in its measurement 2", [120.0, 118.0]], [four.status, four.why, four.rates]
      refute_includes [o.best, o.runner_up].map(&:settings), {"workers" => 4}
    end

    # A start that fails its repeat is no measure of the noise (its spread
    # with a 0 would be 200%): the floor stands, and the first qualifying
    # candidate is the best.
    def test_a_start_that_fails_its_repeat_measures_no_noise
      script = Script.new({2 => [100, 0.0], 4 => [120], 8 => [125, 110], 6 => [114], 3 => [105], 5 => [100]}, status: {2 => ["ok", "failed"]})
      o = search(script, rounds: 3)
      # The start twice (no third time after its failure); 4 three times,
      # the best; 8 leads on its first figure and is confirmed (115 on
      # three: no gain); down is the start; midpoints 3 and 6, then 5.
      assert_equal [2, 2, 4, 4, 4, 8, 8, 8, 3, 6, 5], script.calls
      assert_equal 0.01, o.noise
      assert_equal ["failed", "failed in its measurement 2"], [o.candidates.first.status, o.candidates.first.why]
      assert_equal({"workers" => 4}, o.best.settings)
      assert_equal [120.0] * 3, o.best.rates
      assert_equal({"workers" => 8}, o.runner_up.settings)
      o = search(Script.new({2 => [100, 0.0]}, status: {2 => ["ok", "failed"]}), rounds: 1, space: space(min: 2, max: 2))
      assert_equal 0.01, o.noise, "rounds 1 likewise"
      assert_nil o.best
    end

    # The best fails when it is measured again to meet a challenger: it no
    # longer stands, and the challenger (which held on all its figures) is
    # the best.
    def test_a_best_that_fails_its_confirmation_gives_way
      script = Script.new({2 => [100, 0.0], 4 => [101, 100], 8 => [90], 3 => [85], 6 => [88], 5 => [70]}, status: {2 => ["ok", "failed"]})
      o = search(script, rounds: 3, repeat_start: false)
      # 4 leads the single start: the start fails its second measurement
      # (not measured a third time), 4 holds on three; then 8, the start
      # (measured), midpoints 3 and 6, and 5: no gain.
      assert_equal [2, 4, 2, 4, 4, 8, 3, 6, 5], script.calls
      assert_equal({"workers" => 4}, o.best.settings)
      assert_equal [101.0, 100.0, 100.0], o.best.rates
    end

    def test_the_noise_is_the_largest_of_the_floor_the_spread_and_the_resolution
      script = Script.new({2 => [100, 104]})
      o = search(script, rounds: 1, space: Tune::Space.new(dimensions: [], start: {}).then { space(min: 2, max: 2) })
      assert_equal [2, 2], script.calls, "rounds 1: the start twice"
      assert_in_delta 0.0392, o.noise, 1e-12
      assert_equal [100, 104], o.best.rates

      o = search(Script.new({2 => [100, 101]}, resolution: 0.05), rounds: 1, space: space(min: 2, max: 2))
      assert_equal 0.05, o.noise, "the bisection's resolution is a floor"

      o = search(Script.new({2 => [100, 101]}), rounds: 1, min_noise: 0.2, space: space(min: 2, max: 2))
      assert_equal 0.2, o.noise

      script = Script.new({2 => [100, 101, 102, 103]})
      o = search(script, rounds: 3, space: space(min: 2, max: 2))
      assert_equal [2, 2, 2], script.calls, "rounds 3: the start three times"
      assert_in_delta 0.0198, o.noise, 1e-12

      script = Script.new({2 => [100, 101]})
      o = search(script, rounds: 3, repeat_start: false, space: space(min: 2, max: 2))
      assert_equal [2], script.calls
      assert_equal 0.01, o.noise
    end

    # The deadline counts the mean time of one measurement (elapsed over
    # figures): the start's three take 30 s, 10 s each; at 30 s a 40 s
    # deadline still fits one more (30 + 10 is not beyond 40), at 40 s
    # nothing more does.
    def test_a_candidate_is_begun_only_when_one_more_measurement_fits
      clock = FakeClock.new
      script = Script.new({2 => [100, 101, 99], 4 => [120]}, clock: clock)
      o = search(script, deadline: 40.0, clock: clock)
      assert_equal [2, 2, 2, 4], script.calls
      assert_equal "time", o.stopped
      assert_equal({"workers" => 2}, o.best.settings, "4 led once but was never confirmed")

      clock = FakeClock.new
      script = Script.new({2 => [100, 101, 99], 4 => [120]}, clock: clock, seconds: 10.0)
      o = search(script, deadline: 39.9, clock: clock)
      assert_equal [2, 2, 2], script.calls
      assert_equal "time", o.stopped
    end

    # Time running out between the repeats of a lead keeps the repeats
    # already measured (9015280): 4 leads at 40 s and is repeated once at
    # 40 s (40 + 10 is not beyond 50); at 50 s its third does not fit. Each
    # of the 5 measurements is a figure of the outcome's candidates (before
    # the fix 4 kept [120] alone: results.json held 5 runs, tune.json 4).
    def test_time_running_out_between_repeats_keeps_those_measured
      clock = FakeClock.new
      script = Script.new({2 => [100, 101, 99], 4 => [120, 121, 119]}, clock: clock)
      o = search(script, deadline: 50.0, clock: clock)
      assert_equal [2, 2, 2, 4, 4], script.calls
      assert_equal "time", o.stopped
      assert_equal [[2, [100.0, 101.0, 99.0]], [4, [120.0, 121.0]]], o.candidates.map { |c| [c.settings["workers"], c.rates] }
      assert_equal 120.5, o.candidates.last.sustained_rps
      assert_equal 20.0, o.candidates.last.elapsed_s
      assert_equal({"workers" => 2}, o.best.settings, "4 was not measured to its rounds")
    end

    def test_interrupted_before_anything_was_measured
      o = search(Script.new({2 => [100]}, interrupt_after: 0))
      assert_equal "interrupted", o.stopped
      assert o.interrupted?
      assert_nil o.best
      assert_empty o.candidates
      assert_nil o.margin
      assert_nil o.difference
      refute o.within_noise?
    end

    def test_nothing_qualifies
      script = Script.new({2 => [0.0], 4 => [0.0], 1 => [0.0], 3 => [0.0]}, status: {2 => "unsustained", 4 => "unsustained", 1 => "unsustained", 3 => "unsustained"})
      o = search(script)
      assert_nil o.best
      assert_nil o.runner_up
      assert_equal [2, 4, 1, 3], script.calls
    end

    # Ties rank to less memory.
    def test_a_tie_goes_to_less_memory
      script = Script.new({2 => [100], 4 => [100], 1 => [100], 3 => [100]}, pss_mib: ->(w) { 500 - w })
      o = search(script, rounds: 1, repeat_start: false)
      assert_equal({"workers" => 4}, o.best.settings)
      assert_equal({"workers" => 3}, o.runner_up.settings)
    end

    def test_margin
      assert_in_delta 0.25, outcome(candidate("w1", [125.0]), candidate("w2", [100.0])).margin, 1e-12
      assert_nil outcome(nil, candidate("w2", [100.0])).margin
      assert_nil outcome(candidate("w1", [125.0]), nil).margin
      assert_nil outcome(candidate("w1", [125.0]), candidate("w2", [0.0])).margin, "a runner-up that scored nothing"
      assert_nil outcome(candidate("w1", [125.0]), candidate("w2", [100.0], status: "over-memory")).margin
    end

    def test_within_noise_by_the_margin_when_there_is_no_test
      assert outcome(candidate("w1", [102.0]), candidate("w2", [100.0]), noise: 0.02).within_noise?, "at the noise"
      refute outcome(candidate("w1", [102.1]), candidate("w2", [100.0]), noise: 0.02).within_noise?
      refute outcome(candidate("w1", [102.0]), nil).within_noise?
    end

    def test_within_noise_by_the_test_when_both_have_three_figures
      # Far apart, little spread: real, though the margin (10%) is within a 20% noise.
      apart = outcome(candidate("w1", [110.0, 110.5, 109.5]), candidate("w2", [100.0, 100.5, 99.5]), noise: 0.2)
      refute apart.within_noise?
      assert apart.difference.significant?
      assert_match(/\Aw1 is \+10\.0% against w2 /, apart.difference.reason)
      # Close and spread: not distinguishable, though the margin (3%) is beyond a 1% noise.
      close = outcome(candidate("w1", [113.0, 90.0, 106.0]), candidate("w2", [100.0, 101.0, 99.0]), noise: 0.01)
      assert close.within_noise?
      refute close.difference.significant?
    end

    def test_the_difference_needs_three_figures_on_each_side
      three = [100.0, 101.0, 99.0]
      assert_nil outcome(candidate("w1", [110.0, 111.0]), candidate("w2", three)).difference
      assert_nil outcome(candidate("w1", three), candidate("w2", [110.0, 111.0])).difference
      assert_nil outcome(nil, candidate("w2", three)).difference
      assert_nil outcome(candidate("w1", three), nil).difference
      refute_nil outcome(candidate("w1", three), candidate("w2", three)).difference
      unnamed = Tune::Search::Outcome.new(best: candidate("w1", [110.0, 111.0, 109.0]).with(label: nil),
        runner_up: candidate("w2", three).with(label: nil), noise: 0.02)
      assert_match(/\Abest is \+10\.0% against runner-up /, unnamed.difference.reason)
    end

    def test_interrupted
      assert outcome(nil, nil, stopped: "interrupted").interrupted?
      refute outcome(nil, nil, stopped: "time").interrupted?
      refute outcome(nil, nil, stopped: "converged").interrupted?
    end

    # What arena tune leaves to the defaults: the noise floor is 3% and
    # the clock is Arena's own; without rounds, the start twice and the
    # noise rule (a lead within it is no gain, beyond it one figure will do).
    def test_the_defaults
      script = Script.new({2 => [100, 101], 4 => [103.5], 1 => [50], 3 => [104.5], 6 => [90]})
      o = Timeout.timeout(5) { Tune::Search.new(space: space, evaluate: script, deadline: Clock.now + 3600).call }
      assert_equal 0.03, o.noise
      assert_equal [2, 2, 4, 1, 3, 6], script.calls, "4 leads by 2.99%, 3 by 3.98%: only 3 is beyond the noise, and it is not measured again"
      assert_equal [{"workers" => 3}, {"workers" => 4}], [o.best.settings, o.runner_up.settings]
      assert o.frozen?
      assert o.candidates.frozen?
    end

    # Under 3 rounds there is no test: rounds 2 is the noise rule, and the
    # outcome ranks every candidate by its figure.
    def test_two_rounds_is_the_noise_rule
      script = Script.new({2 => [100, 102], 4 => [102.5], 1 => [50], 3 => [110], 6 => [90]})
      o = search(script, rounds: 2)
      assert_equal [2, 2, 4, 1, 3, 6], script.calls
      assert_equal({"workers" => 3}, o.best.settings)
      assert_equal [110.0], o.best.rates
      script = Script.new({2 => [100, 102], 4 => [102.5], 1 => [50], 3 => [99]})
      o = search(script, rounds: 2)
      assert_equal({"workers" => 4}, o.best.settings, "4 scored more, within the noise: ranked first all the same")
      assert_equal({"workers" => 2}, o.runner_up.settings)
    end

    # With more rounds than 3, the best is still the one the test accepted.
    def test_four_rounds_rank_the_accepted_best_first
      script = Script.new({2 => [100, 101, 99, 100], 4 => [106, 97, 99, 100], 1 => [90], 3 => [99]})
      o = search(script, rounds: 4)
      assert_equal [2, 2, 2, 2, 4, 4, 4, 4, 1, 3], script.calls
      assert_equal [{"workers" => 2}, {"workers" => 4}], [o.best.settings, o.runner_up.settings]
      assert_operator o.runner_up.score, :>, o.best.score
    end

    # The deadline's mean is over the candidates measured: at 20 s, with
    # two candidates of 10 s each, one more fits a 35 s deadline (20 + 10),
    # and at 30 s none does. A sum would have stopped at 20 s.
    def test_the_time_of_one_measurement_is_the_mean_over_candidates
      clock = FakeClock.new
      script = Script.new({2 => [100], 4 => [200], 8 => [300]}, clock: clock)
      o = search(script, rounds: 1, repeat_start: false, deadline: 35.0, clock: clock)
      assert_equal [[2, 4, 8], "time"], [script.calls, o.stopped]
      # A measurer that does not say how long it took counts as no time.
      script = Script.new({2 => [100], 4 => [200], 8 => [300], 6 => [250], 7 => [260]}, seconds: nil)
      o = search(script, rounds: 1, repeat_start: false, deadline: 1.0, clock: FakeClock.new)
      assert_equal [[2, 4, 8, 6, 7], "converged"], [script.calls, o.stopped]
    end

    # Candidates of equal figures rank by memory; one without a PSS figure
    # (nothing sampled) counts as none, rather than stopping the ranking.
    def test_a_tie_with_a_candidate_without_memory
      script = Script.new({2 => [100], 4 => [100], 1 => [100], 3 => [100]}, pss_mib: ->(w) { (w == 1) ? nil : 100 })
      o = search(script, rounds: 1, repeat_start: false)
      assert_equal({"workers" => 1}, o.best.settings)
    end

    # Three figures each, but one served nothing: no test, the margin rule.
    def test_within_noise_by_the_margin_when_the_test_cannot_be_made
      o = outcome(candidate("w1", [110.0, 111.0, 109.0]), candidate("w2", [150.0, 0.0, 150.0]), noise: 0.02)
      refute o.difference.measured?
      refute o.within_noise?, "110 against 100: beyond 2%"
      assert outcome(candidate("w1", [110.0, 111.0, 109.0]), candidate("w2", [150.0, 0.0, 150.0]), noise: 0.2).within_noise?
    end
  end
end
