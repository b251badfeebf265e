# frozen_string_literal: true

module Arena
  # `arena compare --fail-on 'good_rps:-5%,p99:+10%,pss:+10%'`: a CI gate.
  # A change fails only when it is beyond its threshold in the bad direction
  # AND beyond the run-to-run spread. The spread is the min-max range of the
  # repeats relative to their median, the larger of the two runs; it is only
  # measured when both runs repeated each measurement at least MIN_REPEATS
  # times. With fewer the gate says so and judges against a stated default
  # band. A fixed threshold alone fails builds on a noisy runner; the spread
  # alone fails them on a real but harmless change.
  class Gate
    MIN_REPEATS = 3

    # "good_rps:-5%": fail when good_rps drops by more than 5%. The sign says
    # which direction is a regression, so it is required.
    Threshold = Struct.new(:metric, :limit, keyword_init: true) do
      def self.parse_list(spec)
        items = spec.to_s.split(",").map(&:strip).reject(&:empty?)
        raise UsageError, "--fail-on needs METRIC:±N% items, e.g. 'good_rps:-5%,p99:+10%'" if items.empty?
        list = items.map { |item| parse(item) }
        dup = list.map(&:metric).tally.find { |_, n| n > 1 }
        raise UsageError, "--fail-on names #{dup.first} twice" if dup
        list.freeze
      end

      def self.parse(item)
        metric, limit = item.split(":", 2)
        unless Report::Compare::READERS.key?(metric)
          raise UsageError, "--fail-on: unknown metric #{metric.inspect} (known: #{Report::Compare::READERS.keys.join(", ")})"
        end
        match = /\A([+-])(\d+(?:\.\d+)?)%\z/.match(limit.to_s.strip)
        raise UsageError, "--fail-on #{item.inspect}: write the limit with its sign, e.g. #{metric}:-5% (fail on a drop) or #{metric}:+10% (fail on a rise)" unless match
        value = match[2].to_f / 100
        raise UsageError, "--fail-on #{item.inspect}: the limit must be greater than 0%" unless value.positive?
        new(metric: metric, limit: (match[1] == "-") ? -value : value).freeze
      end

      def to_s = "#{metric}:#{Gate.signed(limit)}"

      # How far the change went in the direction this threshold guards.
      def worse?(delta) = limit.negative? ? delta < limit : delta > limit
    end

    # One threshold on one pair of measurements.
    Check = Struct.new(:pair, :threshold, :a, :b, :delta, :band, :measured, :runs, keyword_init: true) do
      # :fail, :ok (within threshold), :noise (beyond threshold, within spread), :missing
      def verdict
        return :missing if delta.nil?
        return :ok unless threshold.worse?(delta)
        (delta.abs > band) ? :fail : :noise
      end

      def failed? = verdict == :fail
    end

    attr_reader :compare, :thresholds, :default_band

    def initialize(compare:, thresholds:, default_band:)
      @compare = compare
      @thresholds = thresholds
      @default_band = default_band
    end

    def checks
      @checks ||= compare.pairs.flat_map do |pair|
        thresholds.map { |t| check(pair, t) }
      end.freeze
    end

    def failures = checks.select(&:failed?)

    def failed? = failures.any?

    # Pairs judged against the default band because a side has too few repeats.
    def unmeasured = checks.reject { |c| c.measured || c.verdict == :missing }.map(&:pair).uniq

    def missing? = checks.any? { |c| c.verdict == :missing }

    def self.pct(fraction) = "#{format("%.1f", 100 * fraction.abs)}%"

    def self.signed(fraction) = "#{fraction.negative? ? "-" : "+"}#{pct(fraction)}"

    private

    def check(pair, threshold)
      a = pair.values(threshold.metric, :a)
      b = pair.values(threshold.metric, :b)
      ma = a.empty? ? nil : Report::Rows.median(a)
      mb = b.empty? ? nil : Report::Rows.median(b)
      delta = (ma && mb && ma.positive?) ? (mb - ma) / ma : nil
      measured = [a, b].all? { |v| v.size >= MIN_REPEATS }
      band = measured ? [a, b].map { |v| Report::Compare.spread(v) }.max : default_band
      Check.new(pair: pair, threshold: threshold, a: ma, b: mb, delta: delta, band: band, measured: measured,
        runs: [a.size, b.size]).freeze
    end
  end
end
