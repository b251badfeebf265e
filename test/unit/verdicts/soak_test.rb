# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # The soak's rule on simulated memory of known truth: a 200 MiB tree with
  # GC's sawtooth (a ramp that drops every `period` seconds) and noise,
  # sampled each second; with or without a leak, judged on the last third of
  # a 300 s soak as the scenario does.
  class SoakVerdictTest < Minitest::Test
    cover "Arena::Verdicts::Soak*"

    Rule = Verdicts::Soak
    MIB = 1024.0

    def soak(rng, **shape) = whole(rng, **shape).select { |t, _| t >= shape.fetch(:seconds, 300) * 2 / 3.0 }

    # The whole soak; warm_mib: a warm-up that approaches its level with time constant tau.
    def whole(rng, leak_mib_min:, amp_mib: 4, period: 10, noise_mib: 0.3, seconds: 300, step_mib: nil, step_at: 0.93, warm_mib: 0, tau: 60)
      phase = rng.rand * period
      (0..seconds).map do |t|
        y = 200 * MIB + leak_mib_min * MIB / 60 * t + amp_mib * MIB * (((t + phase) % period) / period) + normal(rng) * noise_mib * MIB
        y += warm_mib * MIB * (1 - Math.exp(-t / tau.to_f))
        y += step_mib * MIB if step_mib && t > seconds * step_at
        [t.to_f, y]
      end
    end

    # The last third with the third before it, as SoakAnalysis hands them over.
    def thirds(points)
      last = points.last.first
      [points.select { |t, _| t >= last / 3.0 && t < last * 2 / 3.0 }, points.select { |t, _| t >= last * 2 / 3.0 }]
    end

    def judged(points)
      before, window = thirds(points)
      Rule.call(window, before: before)
    end

    # Issue 33's audit: a sawtooth whose period (150 s) is longer than the
    # judged window (100 s) is flat, and was called growing.
    def test_a_sawtooth_longer_than_the_window_is_not_growing
      rng = Random.new(33)
      soaks = Array.new(100) { whole(rng, leak_mib_min: 0, amp_mib: 20, period: 150) }
      alone = soaks.count { |pts| growing?(thirds(pts).last) }
      assert_operator alone, :>=, 20, "the window alone calls it growing (#{alone} of 100)"
      called = soaks.count { |pts| judged(pts).verdict.word == "growing" }
      assert_operator called, :<=, 5, "#{called} of 100 long sawtooths called growing"
      j = soaks.map { |pts| judged(pts) }.find { |x| x.verdict.reason.include?("cycle") }
      assert_match(/\A\+\d+\.\d\d MiB\/min in the last third, but it climbed no higher than the \d+\.\d MiB the third before it held: a cycle longer than the window \(GC's sawtooth\), not growth\z/, j.verdict.reason)
      assert_equal "plateaued", j.verdict.word
    end

    # Issue 33's audit: a 2 MiB/min leak under a 6 MiB sawtooth of 20 s was
    # "plateaued" with its floor (about 4 MiB/min) stated.
    def test_a_leak_under_the_windows_floor_is_found_over_two_thirds
      rng = Random.new(34)
      soaks = Array.new(100) { whole(rng, leak_mib_min: 2, amp_mib: 6, period: 20) }
      alone = soaks.count { |pts| growing?(thirds(pts).last) }
      assert_operator alone, :<=, 60, "the window alone misses most (#{alone} of 100 found)"
      found = soaks.count { |pts| judged(pts).verdict.word == "growing" }
      assert_operator found, :>=, 95, "#{found} of 100 found"
      j = soaks.map { |pts| judged(pts) }.find { |x| x.verdict.reason.include?("two thirds") }
      assert_match(/\A\+\d\.\d\d MiB\/min over the last two thirds, above the \d\.\d\d MiB\/min their scatter could make alone \(the last third alone: no growth above \d\.\d\d MiB\/min detected \(this soak's floor\)\)\z/, j.verdict.reason)
      assert_in_delta 2.0, j.slope_mib_per_min, 0.5
    end

    # Neither change calls a flat soak or a warm-up that is slowing down growing.
    def test_flat_soaks_and_slowing_warm_ups_stay_plateaued
      rng = Random.new(35)
      [{amp_mib: 6, period: 20}, {amp_mib: 4, period: 10}, {amp_mib: 2, period: 5}, {warm_mib: 30, tau: 60, amp_mib: 4}].each do |shape|
        called = Array.new(100) { judged(whole(rng, leak_mib_min: 0, **shape)).verdict.word }.count("growing")
        assert_operator called, :<=, 5, "#{shape}: #{called} of 100 called growing"
      end
    end

    def test_the_third_before_is_used_only_when_it_can_be_judged
      line = (0..35).map { |t| [t.to_f, 1000.0 + 1024.0 * t] }
      before, window = line.first(24).last(12), line.last(12)
      assert_equal Rule.call(window), Rule.call(window, before: before.first(11)), "under 12 samples before: the window alone"
      assert_equal "growing", Rule.call(window, before: before).verdict.word, "a new high"
      flat = Rule.call(window, before: before.map { |t, _| [t, 1000.0 + 1024.0 * 35] })
      assert_equal "plateaued", flat.verdict.word, "no higher than the third before held"
      short = Rule.call(window.first(5), before: before)
      refute short.verdict.judged?
    end

    # What each outcome of the two thirds hands back, on lines worked out
    # exactly: the cycle keeps the window's figures with its own words; the
    # longer span's growth is the longer span's figures, its words naming the
    # window's own; a window that slowed to under half the longer slope is
    # itself, as is a window that grows to a new high.
    def test_the_two_thirds_hand_back_the_span_decided_on
      line = (0..35).map { |t| [t.to_f, 1000.0 + 1024.0 * t] }
      before, window = line.first(24).last(12), line.last(12)
      alone = Rule.judge(window)
      higher = before.map { |t, _| [t, 1000.0 + 1024.0 * 40] }
      cycle = Rule.call(window, before: higher)
      assert_equal alone.with(verdict: Verdicts::Verdict.of("plateaued", "+60.00 MiB/min in the last third, but it climbed no higher than " \
        "the 41.0 MiB the third before it held: a cycle longer than the window (GC's sawtooth), not growth")), cycle
      assert_equal alone, Rule.call(window, before: before)
      # A rising line in the third before, a window of the same line under +-600 kB of alternating scatter.
      rising = (0..11).map { |t| [t.to_f, 1000.0 + 100.0 * t] }
      noisy = ->(a) { (12..23).map { |t| [t.to_f, 1000.0 + 100.0 * t + (t.even? ? a : -a)] } }
      longer = Rule.judge(rising + noisy.call(600))
      found = Rule.call(noisy.call(600), before: rising)
      assert_equal longer.with(verdict: Verdicts::Verdict.of("growing", "+5.68 MiB/min over the last two thirds, above the 1.78 MiB/min their " \
        "scatter could make alone (the last third alone: no growth above 12.67 MiB/min detected (this soak's floor))")), found
      assert found.frozen?
      # +-1500 kB: the window's slope (2.17) is under half the longer one's (5.40): the window alone.
      assert_equal Rule.judge(noisy.call(1500)), Rule.call(noisy.call(1500), before: rising)
      assert_equal "growing", Rule.judge(rising + noisy.call(1500)).verdict.word
    end

    def normal(rng) = Math.sqrt(-2 * Math.log(1 - rng.rand)) * Math.cos(2 * Math::PI * rng.rand)

    def growing?(points) = Rule.call(points).verdict.word == "growing"

    # The issue's soak: 5 MiB/min on 200 MiB over 300 s (7 GiB a day) was
    # called plateaued under a hidden 5% floor.
    def test_a_five_mib_per_minute_leak_is_growing
      j = Rule.call(soak(Random.new(1), leak_mib_min: 5))
      assert_equal "growing", j.verdict.word, j.verdict.to_s
      assert_in_delta 5.0, j.slope_mib_per_min, 1.0
      m = assert_match(/\A\+(\d+\.\d\d) MiB\/min, above the (\d+\.\d\d) MiB\/min this soak's scatter could make alone\z/, j.verdict.reason)
      assert_in_delta j.slope_mib_per_min, m[1].to_f, 0.006
      assert_equal j.cut_mib_per_min, m[2].to_f
    end

    def test_a_flat_soak_states_its_floor
      j = Rule.call(soak(Random.new(2), leak_mib_min: 0))
      assert_equal "plateaued", j.verdict.word
      assert_equal format("no growth above %.2f MiB/min detected (this soak's floor)", j.floor_mib_per_min), j.verdict.reason
      assert_operator j.floor_mib_per_min, :>, 0
    end

    # Simulated: for each of these sawtooths, leaks at the floor a flat soak
    # of the same shape states are found in at least 95%, and the flat soak
    # is called growing in at most 5%. (A sawtooth whose period is as long
    # as the judged window looks like a leak to any rule; periods here are a
    # fifth of it or shorter.)
    SHAPES = [{amp_mib: 2, period: 5}, {amp_mib: 4, period: 10}, {amp_mib: 6, period: 20}].freeze

    def test_leaks_above_the_floor_are_found_and_flat_sawtooths_are_not_growing
      rng = Random.new(26)
      SHAPES.each do |shape|
        flats = Array.new(100) { Rule.call(soak(rng, leak_mib_min: 0, **shape)) }
        false_alarms = flats.count { |j| j.verdict.word == "growing" }
        assert_operator false_alarms, :<=, 5, "flat #{shape}: #{false_alarms} of 100 called growing"
        floor = flats.map(&:floor_mib_per_min).sort[95] # the floor such a soak states, 95th percentile
        found = Array.new(100) { growing?(soak(rng, leak_mib_min: floor, **shape)) }.count(true)
        assert_operator found, :>=, 95, "leak of #{floor.round(2)} MiB/min with #{shape}: found #{found} of 100"
      end
    end

    # A single +6% step near the end is not a leak: the growth is not sustained.
    def test_one_step_near_the_end_is_not_growing
      rng = Random.new(6)
      called = Array.new(100) { growing?(soak(rng, leak_mib_min: 0, amp_mib: 3, period: 10, step_mib: 12)) }.count(true)
      assert_operator called, :<=, 5, "#{called} of 100 steps called growing"
    end

    def test_a_falling_tree_is_not_growing
      points = (0..100).map { |t| [t.to_f, 200 * MIB - 50 * t] }
      assert_equal "plateaued", Rule.call(points).verdict.word
    end

    def test_too_few_samples_cannot_be_judged
      j = Rule.call([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]])
      assert_equal Verdicts::Verdict.cannot_judge("too short to judge: 3 memory samples in the last third, 12 needed"), j.verdict
      assert_nil j.floor_mib_per_min
      assert j.frozen?
      refute Rule.call([]).verdict.judged?
      refute Rule.call(Array.new(20) { [1.0, 5.0] }).verdict.judged?, "no time span: no line"
    end

    # A straight line with no noise: the slope exactly, the floor 0.
    def test_a_clean_line_is_measured_exactly
      j = Rule.call((0..60).map { |t| [t.to_f, 1000.0 + 1024 * t / 60.0] })
      assert_equal "growing", j.verdict.word
      assert_in_delta 1.0, j.slope_mib_per_min, 1e-9
      assert_in_delta 0.0, j.floor_mib_per_min, 1e-9
    end

    # The parts of the rule on points whose answers are worked by hand.
    def test_block_means_and_their_rises
      line = (0..11).map { |t| [t.to_f, t.to_f] }
      assert_equal [[0.5, 0.5], [2.5, 2.5], [4.5, 4.5], [6.5, 6.5], [8.5, 8.5], [10.5, 10.5]], Rule.blocks(line)
      assert_equal [[0.5, 0.0], [2.5, 0.0], [4.5, 0.0], [6.5, 0.0], [8.5, 0.0], [11.0, 0.0]], Rule.blocks((0..12).map { |t| [t.to_f, 0.0] }), "13 points: five blocks of 2, one of 3"
      assert_equal [[0.0, 0.0], [1.0, 0.0]], Rule.blocks([[0.0, 0.0], [1.0, 0.0]]), "under six points: a block each"
      assert_equal [], Rule.blocks([])
      assert_equal 15, Rule.rises(line), "6 rising blocks: every one of the 15 pairs"
      assert_equal(-15, Rule.rises(line.map { |t, y| [t, -y] }))
      assert_equal 0, Rule.rises(line.map { |t, _| [t, 7.0] })
      step = line.map { |t, _| [t, (t >= 10) ? 1.0 : 0.0] }
      assert_equal 5, Rule.rises(step), "one step at the end: the last block above the 5 before it"
    end

    def test_the_block_floor_and_the_widened_error
      line = (0..11).map { |t| [t.to_f, 3.0 * t] }
      fit = Stats::LinearFit.of(line)
      assert_equal 0.0, Rule.block_floor(line, fit), "no scatter about the line"
      assert_equal 0.0, Rule.widened_se(line, fit)
      two = [[0.0, 0.0], [1.0, 5.0]]
      assert_equal 0.0, Rule.block_floor(two, Stats::LinearFit.of(two)), "under 3 blocks: no block floor"
      # Six points, one a block, alternating 1 above and 1 below a flat line at 0:
      # the fitted line is not quite flat, so work it from the fit itself.
      zig = (0..5).map { |t| [t.to_f, t.even? ? 1.0 : -1.0] }
      zfit = Stats::LinearFit.of(zig)
      sd = Math.sqrt(zig.sum { |t, y| (y - zfit.at(t))**2 } / 5)
      assert_in_delta 2 * sd / (5.0 / 6), Rule.block_floor(zig, zfit), 1e-12
      # Alternating residuals correlate negatively: clamped to 0, no widening.
      assert_in_delta zfit.slope_se, Rule.widened_se(zig, zfit), 1e-12
      # A slow wave: neighbours alike (r > 0), so fewer samples' worth of news and a wider error.
      wave = (0..59).map { |t| [t.to_f, Math.sin(t / 6.0)] }
      wfit = Stats::LinearFit.of(wave)
      assert_operator Rule.widened_se(wave, wfit), :>, 3 * wfit.slope_se
      assert_equal 60.0, Rule.per_min(1024.0)
    end

    # Every sample count judges a clean rising line growing: blocks of a
    # rounded-up size left 13-15, 19, 20 and 25 samples 5 blocks, whose 10
    # pairs can never reach RISES, so a leak was "plateaued" there.
    def test_a_clean_rising_line_is_growing_at_every_sample_count
      (12..80).each do |n|
        line = (0...n).map { |t| [t.to_f, 1000.0 + 1024.0 * t] }
        assert_equal Rule::BLOCKS, Rule.blocks(line).size, "#{n} samples"
        assert_equal "growing", Rule.call(line).verdict.word, "#{n} samples"
      end
    end

    # The words state the figure the decision was made at: a growing slope is
    # above the figure named, a plateau's "no growth above F" has its slope
    # under F, and a slope beyond the scatter that did not rise block after
    # block says so with its count. On simulated soaks of every kind.
    def test_the_words_never_contradict_the_slope
      rng = Random.new(47)
      kinds = Hash.new(0)
      300.times do |i|
        leak = [0, 0.5, 1, 2, 4][i % 5]
        j = Rule.call(soak(rng, leak_mib_min: leak, amp_mib: 2 + i % 7, period: [5, 10, 20][i % 3], step_mib: (i % 4).zero? ? 8 + i % 5 : nil))
        reason = j.verdict.reason
        case reason
        when /\A[+-]\d+\.\d\d MiB\/min, above the (\d+\.\d\d) MiB\/min this soak's scatter could make alone\z/
          kinds[:growing] += 1
          assert_equal "growing", j.verdict.word
          assert_operator j.slope_mib_per_min, :>, $1.to_f, reason
          assert_equal j.cut_mib_per_min, $1.to_f
          assert_operator j.cut_mib_per_min, :<, j.floor_mib_per_min
        when /\Ano growth above (\d+\.\d\d) MiB\/min detected \(this soak's floor\)\z/
          kinds[:flat] += 1
          assert_equal "plateaued", j.verdict.word
          assert_operator j.slope_mib_per_min, :<=, j.cut_mib_per_min + 0.005, reason
          assert_operator j.slope_mib_per_min, :<, $1.to_f, reason
        when /\A[+-]\d+\.\d\d MiB\/min, but not sustained: block means rose in (-?\d+) more of 15 pairs than fell, 11 needed\z/
          kinds[:unsustained] += 1
          assert_equal "plateaued", j.verdict.word
          assert_operator $1.to_i, :<, Rule::RISES
          assert_operator j.slope_mib_per_min, :>, j.cut_mib_per_min - 0.005, reason
        else
          flunk "words of no known form: #{reason.inspect}"
        end
      end
      assert_equal %i[flat growing], kinds.keys.sort, "both usual verdicts met: #{kinds}"
    end

    # The three forms of words, each from the figure it was decided on; the
    # third (a slope beyond the scatter whose blocks did not keep rising) no
    # simulated soak reached, as the block floor is about that scatter.
    def test_the_words_from_the_figures_decided_on
      assert_equal Verdicts::Verdict.of("plateaued", "no growth above 4.58 MiB/min detected (this soak's floor)"), Rule.words(2.1, 2.1, 4.58, 15)
      assert_equal Verdicts::Verdict.of("growing", "+3.40 MiB/min, above the 2.10 MiB/min this soak's scatter could make alone"), Rule.words(3.4, 2.1, 4.58, 11)
      assert_equal Verdicts::Verdict.of("plateaued", "+6.00 MiB/min, but not sustained: block means rose in 10 more of 15 pairs than fell, 11 needed"),
        Rule.words(6.0, 2.1, 4.58, 10)
    end

    # The widening worked through on 12 points whose residuals repeat in
    # pairs (+1, +1, -1, -1, ...) about a rising line: lag-1 products sum to
    # 11 terms of which (+1)(+1) and (-1)(-1) pairs give +1 and the
    # crossings -1; the line fits the pairs' residuals exactly as built.
    def test_the_widened_error_of_residuals_that_repeat_in_pairs
      pts = (0..11).map { |t| [t.to_f, 2.0 * t + [1, 1, -1, -1][t % 4]] }
      fit = Stats::LinearFit.of(pts)
      res = pts.map { |t, y| y - fit.at(t) }
      lag = (1...12).sum { |i| res[i] * res[i - 1] } / res.sum { |e| e * e }
      assert_operator lag, :>, 0.05, "positively correlated: #{lag}"
      n_eff = 12 * (1 - lag) / (1 + lag)
      assert_operator n_eff, :>, 3, "the floors do not bind"
      assert_in_delta fit.slope_se * Math.sqrt(10 / (n_eff - 2)), Rule.widened_se(pts, fit), 1e-12
    end

    def test_twelve_samples_are_enough_to_judge
      line = (0..11).map { |t| [t.to_f, 1000.0 + 1024.0 * t] }
      j = Rule.call(line)
      assert_equal "growing", j.verdict.word
      assert_equal 60.0, j.slope_mib_per_min
      assert_equal "+60.00 MiB/min, above the 0.00 MiB/min this soak's scatter could make alone", j.verdict.reason
      assert j.frozen?
      refute Rule.call(line.first(11)).verdict.judged?
      assert_equal "too short to judge: 11 memory samples in the last third, 12 needed", Rule.call(line.first(11)).verdict.reason
      flat = Rule.call(line.map { |t, _| [t, 1000.0] })
      assert_equal ["plateaued", 0.0, 0.0], [flat.verdict.word, flat.slope_mib_per_min, flat.floor_mib_per_min]
      slow = Rule.call((0..11).map { |t| [t.to_f, 1000.0 + 0.123456 * t] })
      assert_equal 0.007, slow.slope_mib_per_min, "to 3 places"
    end

    def test_the_block_floor_at_its_edges
      flat = Stats::LinearFit.of([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
      assert_equal 0.0, Rule.block_floor([[0.0, 5.0], [1.0, -5.0]], flat), "two blocks: no floor, whatever the scatter"
      # Three blocks of one point, 1 off a flat line each, from t = 10: sd sqrt(3 / 2), blocks 2/3 s long.
      three = [[10.0, 1.0], [11.0, -1.0], [12.0, 1.0]]
      assert_in_delta 2 * Math.sqrt(1.5) / (2.0 / 3), Rule.block_floor(three, flat), 1e-12
      assert_equal 0.0, Rule.block_floor([[5.0, 1.0], [5.0, -1.0], [5.0, 1.0]], flat), "no time between the samples"
      assert_equal [1.5] * 6, Rule.blocks((0..11).map { |t| [t.to_f, t.even? ? 1 : 2] }).map(&:last), "means of whole numbers are not cut to whole numbers"
    end

    # The cut is the larger of CUT standard errors and the block floor; the
    # stated floor adds FIND standard errors: one case where each part leads.
    def test_the_floor_is_composed_of_both_parts
      cases = {se: soak(Random.new(5), leak_mib_min: 1, amp_mib: 4, period: 10), blocks: soak(Random.new(5), leak_mib_min: 1, amp_mib: 12, period: 50)}
      cases.each do |leader, points|
        fit = Stats::LinearFit.of(points)
        se = Rule.widened_se(points, fit)
        block = Rule.block_floor(points, fit)
        assert_equal leader, (Verdicts::Soak::CUT * se > block) ? :se : :blocks
        expected = Rule.per_min([Verdicts::Soak::CUT * se, block].max + Verdicts::Soak::FIND * se).round(2)
        assert_equal expected, Rule.call(points).floor_mib_per_min, leader
      end
    end
  end
end
