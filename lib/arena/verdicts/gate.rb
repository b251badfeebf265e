# frozen_string_literal: true

require_relative "../stats"
require_relative "../support/format"
require_relative "comparison"
require_relative "limits"
require_relative "verdict"

module Arena
  module Verdicts
    # `arena compare --fail-on 'good_rps:-5%,p99:+10%,errors:+0.1pp'`: a CI gate.
    #
    # A relative threshold (N%) fails a change when the head's median is beyond
    # it in the bad direction AND the significance test (Stats.difference:
    # Welch's t on log figures, at LEVEL) says base and head differ. The test,
    # unlike a min-max band, grows stronger with more runs: its false alarms stay
    # at the level and its power rises with n (test/unit/verdicts/gate_rule_test.rb
    # simulates both). Beyond the threshold but not significant is "not
    # distinguishable here", and passes.
    #
    # An absolute threshold (Npp, for errors: the error rate in percentage
    # points) fails when the medians are that far apart; it is what a zero base
    # needs, since a change from 0 has no percentage.
    #
    # What the gate cannot judge fails the build unless --allow-missing: a row
    # measured in base but missing from head (a server that failed to boot), a
    # percentile without enough responses (p99 needs 100), a relative change
    # from a zero base, a change beyond its threshold with too few runs for the
    # test. A gate that passes what it cannot see is no gate.
    class Gate
      LEVEL = 0.05
      PERCENTILES = {"p50" => :p50, "p90" => :p90, "p99" => :p99, "p999" => :p999}.freeze

      # "good_rps:-5%": fail when good_rps drops by more than 5%; "errors:+0.1pp":
      # when the error rate rises by more than 0.1 percentage points. The sign
      # says which direction is a regression, so it is required.
      Threshold = Struct.new(:metric, :limit, :unit, keyword_init: true)

      class Threshold
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
          unless Comparison::READERS.key?(metric)
            raise UsageError, "--fail-on: unknown metric #{metric.inspect} (known: #{Comparison::READERS.keys.join(", ")})"
          end
          match = /\A([+-])(\d+(?:\.\d+)?)(%|pp)\z/.match(limit.to_s.strip)
          raise UsageError, "--fail-on #{item.inspect}: write the limit with its sign, e.g. #{metric}:-5% (fail on a drop) or #{metric}:+10% (fail on a rise)" unless match
          unit = (match[3] == "pp") ? :pp : :pct
          raise UsageError, "--fail-on #{item.inspect}: pp (percentage points) is for errors only, e.g. errors:+0.1pp" if unit == :pp && metric != "errors"
          value = match[2].to_f
          raise UsageError, "--fail-on #{item.inspect}: the limit must be greater than 0#{match[3]}" unless value.positive?
          value /= 100 if unit == :pct
          new(metric: metric, limit: (match[1] == "-") ? -value : value, unit: unit).freeze
        end

        def absolute? = unit == :pp

        def to_s = "#{metric}:#{absolute? ? Verdicts::Gate.signed_pp(limit) : Verdicts::Gate.signed(limit)}"

        # How far the change went in the direction this threshold guards.
        def worse?(delta) = limit.negative? ? delta < limit : delta > limit
      end

      # One threshold on one pair of measurements: medians, the change (a
      # fraction, or percentage points), the test's result, the Verdict.
      Check = Struct.new(:pair, :threshold, :a, :b, :delta, :difference, :verdict, :runs, keyword_init: true)

      class Check
        # :fail, :ok, :noise (beyond threshold, not distinguishable), :cannot_judge
        def outcome
          case verdict.word
          when "fail" then :fail
          when "ok" then :ok
          when "not distinguishable" then :noise
          else :cannot_judge
          end
        end

        def failed? = outcome == :fail
      end

      # A side of one check: its figures, or why it has none (then no figures:
      # the rule reads a missing side's reason only).
      Side = Struct.new(:values, :missing, :responses, keyword_init: true)

      attr_reader :compare, :thresholds, :level

      def initialize(compare:, thresholds:, allow_missing: false, level: LEVEL)
        @compare = compare
        @thresholds = thresholds
        @allow_missing = allow_missing
        @level = level
      end

      def allow_missing? = @allow_missing

      def checks
        @checks ||= (compare.pairs.flat_map { |pair| thresholds.map { |t| check(pair, t) } } + missing_rows).freeze
      end

      def failures = checks.select(&:failed?)

      def unjudged = checks.select { |c| c.outcome == :cannot_judge }

      # Exit 1: a change beyond its threshold and significant, or anything the
      # gate could not judge (unless --allow-missing).
      def failed? = failures.any? || (!allow_missing? && unjudged.any?)

      # The rule, on values alone: threshold, the base's and the head's figures
      # (Side), the test's level. Returns [Verdict, medians a, b, delta, Difference].
      def self.judge(threshold, a, b, level: LEVEL)
        if a.missing || b.missing
          return [Verdicts::Verdict.cannot_judge(missing_words(threshold, a, b)), nil, nil, nil, nil]
        end
        ma = Stats.median(a.values).to_f
        mb = Stats.median(b.values).to_f
        return absolute(threshold, ma, mb) if threshold.absolute?
        unless ma.positive?
          return [Verdicts::Verdict.cannot_judge("#{threshold.metric} from a zero base has no relative change " \
            "(#{Support::Format.metric(threshold.metric, ma)} -> #{Support::Format.metric(threshold.metric, mb)}): " \
            "gate it with an absolute threshold, e.g. errors:+0.1pp"), ma, mb, nil, nil]
        end
        delta = (mb - ma) / ma
        return [Verdicts::Verdict.of("ok", "within #{threshold}"), ma, mb, delta, nil] unless threshold.worse?(delta)
        diff = Stats.difference(a.values, b.values, level: level, names: %w[base head])
        verdict = if !diff.measured? then Verdicts::Verdict.cannot_judge("beyond #{threshold}, but #{diff.reason.delete_prefix("not distinguishable here: ")}")
        elsif diff.significant? then Verdicts::Verdict.of("fail", diff.reason)
        else Verdicts::Verdict.of("not distinguishable", diff.reason)
        end
        [verdict, ma, mb, delta, diff]
      end

      # "p99 needs 100 responses, head has 60"; "no p99 figure in base".
      def self.missing_words(threshold, a, b)
        few = {"base" => a, "head" => b}.select { |_, s| s.missing == :few }
        words = []
        if few.any?
          need = Limits::PERCENTILE_MIN_SAMPLES.fetch(PERCENTILES.fetch(threshold.metric))
          words << "#{threshold.metric} needs #{need} responses, #{few.map { |name, s| "#{name} has #{s.responses}" }.join(", ")}"
        end
        {"base" => a, "head" => b}.each { |name, s| words << "#{s.missing} in #{name}" if s.missing.is_a?(String) }
        words.join("; ")
      end

      # Percentage points between the medians: no test (a rate of errors from
      # the same requests has no log to take at 0); the threshold alone decides.
      def self.absolute(threshold, ma, mb)
        delta = mb - ma
        words = "#{format("%.2f", ma)}% -> #{format("%.2f", mb)}% (#{signed_pp(delta)}; threshold #{signed_pp(threshold.limit)})"
        [Verdicts::Verdict.of(threshold.worse?(delta) ? "fail" : "ok", words), ma, mb, delta, nil]
      end

      def self.pct(fraction) = "#{format("%.1f", 100 * fraction.abs)}%"

      def self.signed(fraction) = "#{fraction.negative? ? "-" : "+"}#{pct(fraction)}"

      def self.signed_pp(points) = "#{points.negative? ? "-" : "+"}#{format("%.2f", points.abs)}pp"

      private

      def check(pair, threshold)
        a = side(pair, threshold, :a)
        b = side(pair, threshold, :b)
        verdict, ma, mb, delta, diff = self.class.judge(threshold, a, b, level: level)
        Check.new(pair: pair, threshold: threshold, a: ma, b: mb, delta: delta, difference: diff, verdict: verdict,
          runs: [pair[:a].size, pair[:b].size]).freeze
      end

      # The figures of one side, or why there are none: a percentile is read
      # only where every run has enough responses for it.
      def side(pair, threshold, which)
        runs = pair[which]
        metric = threshold.absolute? ? "error_pct" : threshold.metric
        name = PERCENTILES[metric]
        if name
          n = runs.map { |m| m.load.latency.n }.min.to_i
          need = Limits::PERCENTILE_MIN_SAMPLES.fetch(name)
          return Side.new(missing: :few, responses: n).freeze if n < need
        end
        values = runs.filter_map(&Comparison::READERS.fetch(metric))
        return Side.new(missing: "no #{metric} figure").freeze if values.empty?
        Side.new(values: values).freeze
      end

      # Rows measured in base and missing from head: a server that failed to
      # boot in head must not pass the gate by its absence.
      def missing_rows
        compare.only_a.map do |key|
          pair = Comparison::Pair.new(label: key[0], workload: key[1], scenario: key[2], variant: key[3], a: [], b: [])
          Check.new(pair: pair, threshold: nil, verdict: Verdicts::Verdict.cannot_judge("measured in base, missing from head"), runs: [0, 0]).freeze
        end
      end
    end
  end
end
