# frozen_string_literal: true

require_relative "../results/tune_document"
require_relative "../stats/median"
require_relative "../stats/stats"
require_relative "../support/format"
require_relative "answer_words"
require_relative "confirmation"
require_relative "confirmed"
require_relative "more_time"

module Arena
  module Tune
    # The answer of `arena tune`: which server, configured how, from the
    # finalists' head-to-head figures (HeadToHead::Entry), decided on their
    # paired ratios (Stats.paired). A pure rule on values: entries in, the
    # answer out, its words and its tune.json record.
    #
    # - The finalists rank by the median of their round figures.
    # - The leader against the next: significantly ahead and not equivalent,
    #   it is the answer, with its margin and interval; equivalent within
    #   ±band, the two tie and the one with less memory under load is the
    #   answer (said so); neither, the leader is the answer and the margin is
    #   said to be not distinguishable here.
    # - What would change it, from the search's figures: the finalist a
    #   memory budget under the answer's PSS would pick, and the one a p99
    #   objective under the answer's p99 would.
    #
    # Then the confirmation rounds (Confirmation, Confirmed) settle it:
    # `confirm` makes the answer of their pick, its margin, rounds and gain
    # over the baseline theirs alone, and its lines lead with the gain.
    #
    # standing (Standing's line) and notes (Notes: what the app's own files
    # say of how it runs) stand right under the answer's head and gain.
    Answer = Struct.new(:server, :settings, :runtime, :version, :command, :config_file, :runner_up, :runner_up_settings,
      :ratio, :interval, :difference, :verdict, :rounds, :slo_ms, :memory_mib, :pss_mib, :p99_ms, :sustained_rps,
      :changes, :not_done, :out, :band_pct, :gem, :baseline, :confirmed, :measured_on, :scaling, :more_time, :standing, :notes,
      keyword_init: true)

    class Answer
      # entries: HeadToHead::Entry; files: {server key => {path:, command:}};
      # versions: {server key => version}; slos: {server key => the p99
      # objective its search held (relative to its own unloaded p99 unless
      # --slo was given)}; not_done: what there was no time for;
      # out: {server key => why it is not in the answer} (failed, crashed, nothing qualified).
      # gems: {server key => [gem, version]} for a server Arena's overlay
      # added beside the app's bundle: the user must add it to deploy it.
      def self.decide(entries:, files: {}, versions: {}, slos: {}, memory_mib: nil, band_pct: 3.0, not_done: [], out: {}, gems: {})
        alive = entries.select(&:alive?)
        out = out.merge(entries.reject(&:alive?).to_h { |e| [e.key, e.failed] })
        ranked = alive.sort_by { |e| [-(Stats.median(e.rates) || e.candidate.score), e.candidate.pss_kb.to_i] }
        best, second = ranked
        return new(not_done: not_done, out: out, memory_mib: memory_mib, changes: [], band_pct: band_pct).freeze unless best
        d = second && paired(second, best, band_pct)
        verdict = if second.nil? then "only"
        elsif d.equivalent? then "equivalent"
        elsif d.significant? && d.estimate_pct.positive? then "ahead"
        else "not distinguishable"
        end
        if verdict == "equivalent" && second.candidate.pss_kb.to_i < best.candidate.pss_kb.to_i
          best, second = second, best
          d = paired(second, best, band_pct)
        end
        c = best.candidate
        new(server: best.key, settings: best.adapter.settings, runtime: best.adapter.runtime.to_s, version: versions[best.key],
          command: files.dig(best.key, :command), config_file: files.dig(best.key, :path), runner_up: second&.key,
          runner_up_settings: second&.adapter&.settings, ratio: d&.measured? ? (1 + d.estimate_pct / 100.0).round(4) : nil,
          interval: d&.measured? ? [(1 + d.low_pct / 100.0).round(4), (1 + d.high_pct / 100.0).round(4)] : nil,
          difference: d, verdict: verdict, rounds: best.rates.size, slo_ms: slos[best.key], memory_mib: memory_mib, pss_mib: c.pss_mib,
          p99_ms: c.p99_ms, sustained_rps: c.sustained_rps, changes: changes(best, ranked - [best]), not_done: not_done, out: out,
          band_pct: band_pct, gem: gems[best.key]).freeze
      end

      # The answer the confirmation rounds give: their pick, with its margin
      # over the other and its gain over the baseline (AnswerWords);
      # the search's figures stay only where the rounds have none (its SLO).
      # measured_on: what the rounds ran on (AnswerWords.measured_on); dir:
      # the tune's directory, which `arena tune --resume` takes (MoreTime's sentence).
      def self.confirm(provisional, confirmed:, baseline:, files:, versions:, gems:, measured_on:, dir: nil)
        # No round ran (no time left): the head to head's answer stands, said in not_done.
        return provisional.with(baseline: baseline, confirmed: confirmed) unless confirmed.found? && confirmed.rounds.positive?
        pick = confirmed.pick
        key = pick.adapter.key
        same = key == provisional.server
        margin = confirmed.margin_ratio
        verdict = if confirmed.other.nil? then "only"
        elsif Confirmed.ahead?(confirmed.margin) then "ahead"
        elsif confirmed.margin&.equivalent? then "equivalent"
        else "not distinguishable"
        end
        ours = pick.role != "baseline" # the baseline's own config is the user's: nothing to write
        new(**provisional.to_h, server: key, settings: pick.adapter.settings, runtime: pick.adapter.runtime.to_s, version: versions[key],
          command: (files.dig(key, :command) if ours), config_file: (files.dig(key, :path) if ours), runner_up: confirmed.other&.adapter&.key,
          runner_up_settings: confirmed.other&.adapter&.settings, ratio: margin&.first, interval: margin&.last, difference: confirmed.margin,
          verdict: verdict, rounds: confirmed.rounds, changes: same ? provisional.changes : [], gem: gems[key],
          pss_mib: confirmed.pss_kb && (confirmed.pss_kb / 1024.0).round(1), p99_ms: confirmed.p99_ms&.round(2),
          baseline: baseline, confirmed: confirmed, measured_on: measured_on, more_time: more_time(confirmed, dir)).freeze
      end

      # What more rounds would buy, when an interval is wider than the target (MoreTime).
      def self.more_time(confirmed, dir)
        need = MoreTime.call(pairs: confirmed.log_pairs, seconds_per_round: confirmed.round_s, target_pct: Confirmation::TARGET_PCT)
        MoreTime.sentence(need, dir: dir || "DIR")
      end

      def with(**changes) = self.class.new(**to_h, **changes).freeze

      # b (the answer) against a, on the rounds both ran.
      def self.paired(a, b, band_pct)
        n = [a.rates.size, b.rates.size].min
        Stats.paired(a.rates.first(n), b.rates.first(n), names: [a.key, b.key], band_pct: band_pct)
      end

      # What would change the answer: the best-ranked other finalist that
      # uses less memory (a smaller budget would pick it) and the one that
      # answered with a lower p99 at its sustained rate (a tighter SLO would).
      def self.changes(best, others)
        c = best.candidate
        lines = []
        lighter = others.find { |e| e.candidate.pss_kb && c.pss_kb && e.candidate.pss_kb < c.pss_kb }
        lines << if lighter
          "a memory budget under #{c.pss_mib} MiB would pick #{lighter.key} (PSS #{lighter.candidate.pss_mib} MiB)"
        elsif others.any? && c.pss_kb
          "no smaller memory budget (#{best.key} needs the least: PSS #{c.pss_mib} MiB)"
        end
        faster = others.find { |e| e.candidate.p99_ms && c.p99_ms && e.candidate.p99_ms < c.p99_ms }
        lines << "a p99 SLO under #{c.p99_ms} ms would pick #{faster.key} (#{faster.candidate.p99_ms} ms at its sustained rate)" if faster
        lines.compact
      end

      def found? = !server.nil?

      def setting_words(s = settings) = Support::Format.settings(s)

      # The margin in words: the estimate with its interval, or the tie.
      def margin_words
        return "the only server that ran head to head" if runner_up.nil?
        d = difference
        return "not compared head to head with #{runner_up}: #{d.reason}" unless d&.measured?
        pct = ->(x) { format("%+.1f%%", x) }
        span = "#{pct.call(d.low_pct)} to #{pct.call(d.high_pct)}"
        case verdict
        when "equivalent"
          "equivalent to #{runner_up} #{setting_words(runner_up_settings)} within ±#{format("%g", band_pct)}% " \
            "(#{pct.call(d.estimate_pct)}, interval #{span}, #{d.n} paired rounds): #{server} uses less memory"
        when "ahead"
          "#{pct.call(d.estimate_pct)} over #{runner_up} #{setting_words(runner_up_settings)} (95% interval #{span}, #{d.n} paired rounds)"
        else
          "#{pct.call(d.estimate_pct)} over #{runner_up} #{setting_words(runner_up_settings)}, not distinguishable here " \
            "(95% interval #{span}, #{d.n} paired rounds)"
        end
      end

      # The terminal's lines that report.md keeps when the block is over
      # BRIEF_LINES, left out in this order: the machine's speed, the
      # general words on N cores, a box's memory within the budget.
      SPARE = [/\A\s*measured at .* median speed\z/, /\A\s*on N cores: /, /\A\s*memory on \d+ cores: .*, within --memory /].freeze
      BRIEF_LINES = 15

      # At most BRIEF_LINES lines: the SPARE ones left out first, then the last.
      def self.brief(lines)
        SPARE.each_with_object(lines.dup) do |spare, kept|
          at = kept.index { |l| l.match?(spare) }
          kept.delete_at(at) if kept.size > BRIEF_LINES && at
        end.first(BRIEF_LINES)
      end

      # The answer in words, the same in the terminal (last) and the report
      # (first): at most 15 lines of at most 100 columns (a path whole).
      # brief: the terminal's block, at most 15 lines of at most 100 columns
      # (what was left out or not done named, not explained: report.md has it).
      def lines(brief: false)
        return ["THE ANSWER: none: no server held a rate within the SLO and the memory budget", *tail_lines] unless found?
        return under_head(confirmed_lines(brief: false), 2) if confirmed? && !brief
        return Answer.brief(under_head(confirmed_lines(brief: true), 2)).map { |l| AnswerWords.fit(l) } if confirmed?
        head = "THE ANSWER: #{server}#{" #{version}" if version} with #{setting_words}, runtime #{runtime}"
        rate = "sustains #{Support::Format.rps(sustained_rps)} req/s at p99 #{p99_ms} ms, PSS #{pss_mib} MiB"
        out = under_head([head, "  #{rate}"], 1)
        out << "  start: #{command.join(" ")}" if command
        out << "  config file: #{config_file}" if config_file
        out << "  Gemfile: add gem \"#{gem[0]}\", \"#{gem[1]}\" (Arena ran it from its overlay beside your bundle; your Gemfile is unchanged)" if gem
        out << "  margin: #{margin_words}"
        out << "  held to: p99 <= #{slo_ms || "?"} ms, < 1% errors, PSS <= #{memory_mib} MiB (the memory budget)"
        out << "  would change it: #{changes.join("; ")}" unless changes.empty?
        out + tail_lines
      end

      def to_record
        return {"server" => nil, "not_done" => not_done, "out" => out} unless found?
        return Results::TuneDocument.confirmed_answer(base_record, answer: self) if confirmed?
        base_record
      end

      def base_record
        {"server" => server, "settings" => settings, "runtime" => runtime, "version" => version, "command" => command,
         "config_file" => config_file, "gem" => gem && {"name" => gem[0], "version" => gem[1]}, "runner_up" => runner_up && {"server" => runner_up, "settings" => runner_up_settings},
         "ratio" => ratio, "interval" => interval, "verdict" => verdict, "rounds" => rounds, "significance" => difference&.reason,
         "slo_ms" => slo_ms, "memory_mib" => memory_mib, "changes" => changes, "not_done" => not_done, "out" => out,
         "standing" => standing, "notes" => (notes unless notes.to_a.empty?)}.compact
      end

      # Whether the confirmation rounds settled it (Answer.confirm).
      def confirmed? = !!confirmed&.found? && confirmed.rounds.positive?

      # Whether the answer is to keep the baseline (the confirmation rounds said so).
      def keep? = confirmed? && confirmed.keep

      private

      # The standing and the notes inserted after the first `at` lines.
      def under_head(lines, at) = lines.dup.insert(at, *[standing, *notes].compact.map { |l| "  #{l}" })

      def confirmed_lines(brief:)
        text = confirmed_head
        # Kept, with another config best of the rest: the figures that follow
        # are that config's, under a line that names it.
        other = keep? && !confirmed.baseline.equal?(confirmed.pick)
        text << "  if you change, the best other config: #{AnswerWords.config(confirmed.pick.adapter)}" if other
        indent = other ? "    " : "  "
        text.concat(confirmed_figures.map { |line| indent + line })
        text << "  would change it: #{brief ? brief_changes : changes.join("; ")}" unless changes.empty?
        text << "  not in the answer: #{brief ? "#{out.keys.join(", ")} (report.md says why)" : out_words}" unless out.empty?
        text << "  not done in time: #{brief ? "#{not_done.size} (listed in report.md)" : not_done.join("; ")}" unless not_done.empty?
        text
      end

      # The first two lines: the answer (or "keep what you run") and its gain or why.
      def confirmed_head
        if keep?
          why = confirmed.baseline.equal?(confirmed.pick) ? "no other config served more in the confirmation rounds" : AnswerWords.keep_reason(confirmed)
          ["THE ANSWER: keep what you run: #{baseline.yours}", "  #{why}"]
        else
          ["THE ANSWER: #{server}#{" #{version}" if version} with #{setting_words}#{", runtime #{runtime}" unless runtime.to_s.empty? || runtime == "default"}",
            *AnswerWords.gain(confirmed, baseline).lines(chomp: true).map { |line| "  #{line}" }]
        end.concat([AnswerWords.stay(confirmed, baseline), AnswerWords.stay_cores(scaling, baseline.server)].compact
          .flat_map { |words| words.lines(chomp: true) }.map { |line| "  #{line}" })
      end

      # The picked config's margin, figures, what they were measured on and how to start it.
      def confirmed_figures
        w = AnswerWords
        lines = [w.margin(confirmed), w.absolute(confirmed)]
        lines << more_time if more_time
        lines << w.speed(confirmed) if confirmed.speed_range
        lines << (scaling&.measured? ? measured_on.sub(/ \(not measured past .*\)\z/, "") : measured_on) if measured_on
        lines.concat(w.scaling(scaling)) if scaling
        lines << w.box_memory(scaling, pss_kb: confirmed.pss_kb, budget_mib: memory_mib, server_cores: scaling&.server_cores)
        lines.compact!
        return lines if keep? && confirmed.pick.role == "baseline"
        lines << "start: #{command.join(" ")}" if command
        lines << "config file: #{config_file}" if config_file
        lines << "Gemfile: add gem \"#{gem[0]}\", \"#{gem[1]}\" (Arena ran it from its overlay; your Gemfile is unchanged)" if gem
        lines
      end

      # The changes that fit the terminal's line whole, and how many more
      # report.md has; else the first alone (cut when even it is too long).
      def brief_changes
        words = changes.size.downto(1).map do |k|
          changes.first(k).join("; ") + ((k < changes.size) ? "; #{changes.size - k} more in report.md" : "")
        end
        words.find { |w| "  would change it: #{w}".size <= 100 } || changes.first
      end

      def out_words = out.map { |key, why| "#{key} (#{why})" }.join("; ")

      def tail_lines
        lines = out.map { |key, why| "  not in the answer: #{key}: #{why}" }
        lines + not_done.map { |what| "  not done in time: #{what}" }
      end
    end
  end
end
