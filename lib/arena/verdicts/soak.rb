# frozen_string_literal: true

require_relative "../stats/linear_fit"
require_relative "verdict"

module Arena
  module Verdicts
    # Does memory grow over a soak's judged window? A pure rule on [[t_s, kb]]
    # points (the tree's USS over the last third), returning the Verdict and
    # the floor it could see: "no growth above 2.4 MiB/min detected (this
    # soak's floor)". No hidden share of the heap decides: the floor comes from
    # this soak's own scatter and length, and is stated.
    #
    # Growing needs both:
    # - the least-squares slope beyond CUT standard errors, the error widened
    #   for the residuals' autocorrelation (GC's sawtooth makes neighbouring
    #   samples alike: n samples carry n(1-r)/(1+r) samples' worth of news),
    #   and beyond what the block means' own scatter hides over one block;
    # - the growth sustained: the means of BLOCKS equal blocks rise in at least
    #   RISES of their ordered pairs (a Mann-Kendall count), so one step near
    #   the end is not a leak.
    # The floor is the slope found with 95% odds: that cut + 1.645 standard
    # errors. A slope under the cut is never called growing; the words state
    # the figure the decision was made at (the cut when growing, the floor
    # when nothing was seen, the block count when the rise was not sustained).
    # test/unit/verdicts/soak_test.rb simulates leaks at the floor (found in at
    # least 95%) and flat sawtooths (called growing in at most 5%).
    module Soak
      CUT = 2.33
      FIND = 1.645
      BLOCKS = 6
      RISES = 11
      MIN_POINTS = 12
      # Over two thirds, the last third keeps at least this share of the slope.
      SLOWING = 0.5

      # cut: the slope this soak's scatter could make alone (growing is
      # decided there); floor: the slope it finds with 95% odds (stated when
      # it saw none).
      Judgement = Struct.new(:verdict, :slope_mib_per_min, :floor_mib_per_min, :cut_mib_per_min, keyword_init: true) do
        def with(**changes) = self.class.new(**to_h, **changes).freeze
      end

      # extend self, not module_function: Name.call then runs the methods mutant mutates
      extend self

      # points: the judged window (the last third); before: the samples of
      # the third before it, when there are any. Two things the window alone
      # cannot see (issue 33's audit):
      # - a cycle longer than the window (GC's sawtooth with a long period):
      #   a ramp inside the window that climbs no higher than the third
      #   before it already held is a cycle, not growth;
      # - a leak under the window's floor: judged again on both thirds
      #   (twice the span: a floor about a third as high), it is growing when
      #   the longer span grows and the last third keeps at least half that
      #   slope (a warm-up that is slowing down does not).
      def call(points, before: [])
        window = judge(points)
        return window if before.size < MIN_POINTS || !window.verdict.judged?
        if window.verdict.word == "growing"
          return window if points.map(&:last).max > before.map(&:last).max
          return window.with(verdict: Verdicts::Verdict.of("plateaued", format("%+.2f MiB/min in the last third, but it climbed no higher " \
            "than the %.1f MiB the third before it held: a cycle longer than the window (GC's sawtooth), not growth",
            window.slope_mib_per_min, before.map(&:last).max / 1024.0)))
        end
        longer = judge(before + points)
        return window unless longer.verdict.word == "growing" && window.slope_mib_per_min >= SLOWING * longer.slope_mib_per_min
        longer.with(verdict: Verdicts::Verdict.of("growing", format("%+.2f MiB/min over the last two thirds, above the %.2f MiB/min their " \
          "scatter could make alone (the last third alone: %s)", longer.slope_mib_per_min, longer.cut_mib_per_min, window.verdict.reason)))
      end

      # The rule on one span of points.
      def judge(points)
        fit = Stats::LinearFit.of(points)
        if fit.nil? || points.size < MIN_POINTS
          return Judgement.new(verdict: Verdicts::Verdict.cannot_judge("too short to judge: #{points.size} memory samples in the last third, " \
            "#{MIN_POINTS} needed")).freeze
        end
        se = widened_se(points, fit)
        cut = [CUT * se, block_floor(points, fit)].max
        floor = cut + FIND * se
        slope = per_min(fit.slope)
        verdict = words(slope, per_min(cut), per_min(floor), rises(points))
        Judgement.new(verdict: verdict, slope_mib_per_min: slope.round(3), floor_mib_per_min: per_min(floor).round(2),
          cut_mib_per_min: per_min(cut).round(2)).freeze
      end

      # The verdict and its words from the figures it was decided on (MiB/min):
      # the cut when growing, the floor when nothing beyond the scatter was
      # seen, the block count when a slope beyond it did not rise block after
      # block (the block floor makes that rare: no simulated soak reached it).
      def words(slope, cut, floor, rises)
        if slope <= cut
          Verdicts::Verdict.of("plateaued", format("no growth above %.2f MiB/min detected (this soak's floor)", floor))
        elsif rises >= RISES
          Verdicts::Verdict.of("growing", format("%+.2f MiB/min, above the %.2f MiB/min this soak's scatter could make alone", slope, cut))
        else
          Verdicts::Verdict.of("plateaued", format("%+.2f MiB/min, but not sustained: block means rose in %d more of %d pairs than fell, %d needed",
            slope, rises, BLOCKS * (BLOCKS - 1) / 2, RISES))
        end
      end

      def per_min(kb_per_s) = kb_per_s * 60 / 1024.0

      # The slope's standard error with the residuals' lag-1 autocorrelation
      # taken into account (an effective sample size, at least 3).
      def widened_se(points, fit)
        res = points.map { |t, y| y - fit.at(t) }
        n = res.size
        ss = res.sum { |e| e * e }
        r = ss.zero? ? 0.0 : ((1...n).sum { |i| res[i] * res[i - 1] } / ss).clamp(0.0, 0.99)
        n_eff = [n * (1 - r) / (1 + r), 3.0].max
        fit.slope_se * Math.sqrt((n - 2) / [n_eff - 2, 1.0].max)
      end

      # BLOCKS blocks whose sizes differ by at most one (fewer only under
      # BLOCKS points): slices of a rounded-up size would leave 5 blocks for
      # 13-15, 19, 20 or 25 points, and 5 blocks have 10 pairs, under RISES.
      def blocks(points)
        n = points.size
        k = [BLOCKS, n].min
        (0...k).map do |i|
          b = points[(i * n / k)...((i + 1) * n / k)]
          [b.sum(&:first) / b.size, b.sum(&:last) / b.size.to_f]
        end
      end

      # Ordered pairs of block means that rise, less those that fall.
      def rises(points)
        means = blocks(points).map(&:last)
        means.each_index.sum { |i| (i + 1...means.size).sum { |j| means[j] <=> means[i] } }
      end

      # A slope must lift one block's mean above twice the block means'
      # scatter around the line to be seen rising block after block.
      def block_floor(points, fit)
        b = blocks(points)
        return 0.0 if b.size < 3
        sd = Math.sqrt(b.sum { |t, y| (y - fit.at(t))**2 } / (b.size - 1))
        length = (points.last.first - points.first.first) / b.size
        length.positive? ? 2 * sd / length : 0.0
      end
    end
  end
end
