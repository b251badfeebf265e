# frozen_string_literal: true

require_relative "../stats/median"
require_relative "../stats/paired"
require_relative "../stats/stats"
require_relative "limits"
require_relative "verdict"

module Arena
  module Verdicts
    # Which server config keeps its fast requests' tail closest to what they
    # took alone: the p90 beside the slow request over the median alone (a
    # p99 of a few hundred responses, alone, is one unlucky pause on a busy
    # machine; the p90 beside the slow request is where the fast requests
    # that waited behind it show). A config whose latency is a socket stall
    # (the `stalled` flag: lib/arena/verdicts/stall.rb) is never best: its fast
    # requests wait out the same fixed delay alone and beside the slow one,
    # so their ratio looks good while the server idles; the verdict says it
    # was skipped and why. Rounds give one entry per config per round: each
    # config is ranked once, by the median of its rounds; from 3 rounds the
    # winner must be ahead of the runner-up by the paired test on their
    # per-round ratios (Stats.by_rounds, paired where both ran in the same
    # rounds), else the verdict names both as not distinguishable (or
    # equivalent): a tie is not broken by sort order. Errors weigh first: a
    # config that failed more than Limits::ERROR_LIMIT_PCT of its requests
    # beside the slow one (the median of its rounds) ranks below every
    # config that did not, whatever its ratio, which is of the responses it
    # gave. Pure: entries in, a Verdict out.
    module HeadOfLine
      # stalled: the stall rule's reason for one of this config's
      # measurements of the workload, or nil; round: the round it ran in;
      # error_pct: the share of the requests beside the slow one that failed
      # (nil: not recorded).
      Entry = Struct.new(:server, :fast, :stalled, :round, :error_pct, keyword_init: true)

      extend self

      # The worst fast request's tail inflation per config; the lowest wins.
      def best(entries)
        stalled, judged = per_config(entries).partition { |c| c[2] }
        skipped = stalled.map { |server, x, why| "skipped #{server} (x#{format("%.1f", x)}): stalled, #{why}" }
        if judged.size < 2
          return Verdict.cannot_judge(["needs two server configs with the fast requests' p90 beside the slow request (10 responses), not stalled", *skipped].join("; "))
        end
        ranked = judged.sort_by { |_, x, _, errors| [failed?(errors) ? 1 : 0, x] }
        (winner, x, _, lost), (second, y, _, errors) = ranked
        figures = figures_line(entries, ranked)
        if failed?(lost)
          return Verdict.cannot_judge(["every config failed over #{format("%g", Limits::ERROR_LIMIT_PCT)}% of its requests beside the slow request (#{figures})", *skipped].join("; "))
        end
        if failed?(errors)
          return Verdict.of("#{winner} protects fast requests best", ["their p90 beside the slow request was x#{format("%.1f", x)} their median alone, " \
            "against #{second}, which failed #{pct(errors)} of its requests beside it (x#{format("%.1f", y)} on the rest) (#{figures})", *skipped].join("; "))
        end
        ahead(entries, ranked, figures, skipped)
      end

      # Per config with a ratio: [server, the median of its rounds' worst
      # ratios, the stall rule's reason (nil: not stalled), its median error share].
      def per_config(entries)
        entries.group_by(&:server).filter_map do |server, rounds|
          xs = rounds.filter_map { |e| worst(e) }
          next nil if xs.empty?
          [server, median(xs), rounds.filter_map(&:stalled).first, median(rounds.map { |e| e.error_pct.to_f })]
        end
      end

      # Each ranked config's ratio (and failures), and how many rounds it is the median of.
      def figures_line(entries, ranked)
        rounds = entries.group_by(&:server).values.map(&:size).max
        line = ranked.map { |server, r, _, e| "#{server} x#{format("%.1f", r)}#{" with #{pct(e)} failed" if failed?(e)}" }.join(", ")
        line += "; median of #{rounds} rounds" if rounds > 1
        line
      end

      # The winner against a runner-up that did not fail either: ahead by the
      # paired test on their rounds, or alike (equivalent, not distinguishable).
      def ahead(entries, ranked, figures, skipped)
        (winner, x), (second, y) = ranked
        words = "their p90 beside the slow request was x#{format("%.1f", x)} their median alone, against x#{format("%.1f", y)} on #{second} (#{figures})"
        diff = lead(entries, winner, second)
        if diff && (!diff.significant? || diff.equivalent?)
          word = diff.equivalent? ? "equivalent" : "not distinguishable"
          return Verdict.of(word, ["#{winner} and #{second} protect fast requests alike here: #{words}; " \
            "#{diff.reason.delete_prefix("not distinguishable here: ")}", *skipped].join("; "))
        end
        Verdict.of("#{winner} protects fast requests best", [words, *(diff && [diff.reason]), *skipped].join("; "))
      end

      def failed?(error_pct) = error_pct > Limits::ERROR_LIMIT_PCT

      def pct(x) = "#{format("%.1f", x)}%"

      # The runner-up's ratios against the winner's, round by round (nil
      # under 3 rounds a side: one or two rounds are reported as measured).
      def lead(entries, winner, second)
        sides = [winner, second].map { |name| entries.select { |e| e.server == name && worst(e) } }
        return nil if sides.any? { |side| side.size < Stats::PairedMethod::MINIMUM }
        a, b = sides
        rounds = ->(side) { side.map(&:round).then { |r| r if r.all? } }
        Stats.by_rounds(a.map { |e| worst(e) }, b.map { |e| worst(e) }, rounds_a: rounds.call(a), rounds_b: rounds.call(b),
          names: [winner, second])
      end

      # The worst fast request's ratio, or nil when any lacks one (or there
      # is none: [].max is nil).
      def worst(entry)
        xs = entry.fast.map { |f| f["tail_x"] }
        xs.max unless xs.any?(&:nil?)
      end

      def median(values) = Stats.median(values)
    end
  end
end
