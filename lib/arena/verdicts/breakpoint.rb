# frozen_string_literal: true

require_relative "verdict"

module Arena
  module Verdicts
    # What the breakpoint scenario's climb means: each level clean or broken
    # (errors past the limit, else a p99 over the SLO), and the climb's
    # outcome: broke, stopped by --max-time, or did not break within the bounds.
    # Scenarios::Breakpoint measures the levels and records what this says.
    module Breakpoint
      extend self

      # Older results files stored no verdict: they ran every level or broke.
      def outcome_words(x)
        return "#{x["verdict"]}: #{x["verdict_reason"]}" if x["verdict"]
        x["broke_at_connections"] ? "broke at #{x["broke_at_connections"]}: #{x["broke_because"]}" : "did not break within the bounds"
      end

      # Level = what the rule reads of one concurrency level.
      Level = Struct.new(:connections, :rps, :broken_because, keyword_init: true)

      # The outcome of the levels measured, in ascending order, out of the
      # `planned` ones: broke at the first broken level (the last clean one is
      # the level before it), did not break when every planned level ran
      # clean, and "stopped" when --max-time ended the climb first: a climb cut
      # short has not shown that the server holds to the bound.
      def judge(levels, planned:)
        broke = levels.find(&:broken_because)
        if broke
          Verdict.of("broke", "at #{broke.connections} connections: #{broke.broken_because}")
        elsif levels.empty?
          Verdict.cannot_judge("time ran out before the first level")
        elsif levels.size < planned
          Verdict.of("stopped", "time ran out after #{levels.size} of #{planned} levels (clean up to #{levels.last.connections} " \
            "connections); not known to hold beyond")
        else
          Verdict.of("did not break", "clean at every level up to #{levels.last.connections} connections (the bound)")
        end
      end

      # The level before the first broken one (or the last, when none broke).
      def last_clean(levels) = levels.take_while { |l| l.broken_because.nil? }.last

      # What the rule reads of one level's measurement: broken by errors over
      # the limit (said by kind), else by a p99 over the SLO.
      def level(m, slo_ms)
        because = if m.summary.erroneous?
          "#{m.load.errors} errors, #{m.load.error_pct}% (#{m.load.nonzero_error_kinds.keys.join(", ")})"
        elsif m.load.latency.p99.to_f > slo_ms * 1000
          "p99 #{(m.load.latency.p99 / 1000.0).round(1)} ms > SLO #{slo_ms} ms"
        end
        Level.new(connections: m.settings&.connections, rps: m.good_rps, broken_because: because).freeze
      end
    end
  end
end
