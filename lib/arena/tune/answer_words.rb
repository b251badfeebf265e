# frozen_string_literal: true

require_relative "../support/format"
require_relative "confirmed"

module Arena
  module Tune
    # The answer's sentences from the confirmation rounds (Confirmed) and the
    # baseline (Baseline::Found): the gain over what the app runs today first,
    # then the margin over the runner-up, what it was measured on, and the
    # absolute figures with the machine speed they were taken at. Numbers
    # carry at most three significant figures; every line fits 100 columns.
    # Pure: values in, strings out.
    module AnswerWords
      # extend self, not module_function: AnswerWords.x then runs the methods mutant mutates
      extend self

      # 3 significant figures (Support::Format.sig3).
      def sig3(x, trim: true) = Support::Format.sig3(x, trim: trim)

      # "1.31× (1.24–1.38)": two decimals, as a ratio near 1 is read.
      def ratio(value, interval) = "#{two(value)}× (#{two(interval[0])}–#{two(interval[1])})"

      def two(x) = (x.abs < 10) ? format("%.2f", x) : sig3(x)

      def pct(value)
        text = sig3((value - 1) * 100)
        text.start_with?("-") ? "#{text}%" : "+#{text}%"
      end

      def settings(s) = Support::Format.settings(s)

      # A config in a few words: its server and the settings it tunes ("falcon count=1").
      def config(adapter)
        tuned = adapter.settings.slice(*adapter.class.tunables.keys)
        tuned.empty? ? adapter.key : "#{adapter.key} #{settings(tuned)}"
      end

      # The gain line: "+31% over your config/puma.rb (puma, 3 threads, 1 process): 1.31× (1.24–1.38)",
      # or, when the baseline ties or wins, "keep what you run: ..." with the best other config's reading.
      def gain(confirmed, baseline)
        yours = baseline.yours
        unless confirmed.baseline&.alive?
          why = confirmed.baseline&.failed
          return why ? "#{yours}: out of the rounds:\n  #{why}" : "#{yours}: not measured (it did not start)"
        end
        return "keep what you run: #{yours} is the best config found" if confirmed.baseline.equal?(confirmed.pick)
        value, interval = confirmed.gain_ratio
        return "keep what you run: #{yours}; the rounds could not compare it (#{paired_rounds(confirmed.gain)})" unless value
        return "#{pct(value)} over #{yours}: #{ratio(value, interval)}" unless confirmed.keep
        "keep what you run: #{yours}; #{keep_reason(confirmed)}"
      end

      # The stay line: the best config of the server you run against yours.
      # "stay on puma: workers=1 threads=5: 1.06× (1.02–1.10) over your config, ahead",
      # or that yours is already the best one found; nil when it was not searched.
      def stay(confirmed, baseline)
        side = confirmed.stay
        return nil unless side
        head = "stay on #{baseline.server}"
        return "#{head}: your config is already the best #{baseline.server} config found" if side.equal?(confirmed.baseline)
        config = settings(side.adapter.settings.slice(*side.adapter.class.tunables.keys))
        return "#{head}: #{config}: out of the rounds:\n  #{side.failed}" unless side.alive?
        value, interval = confirmed.stay_ratio
        return "#{head}: #{config}: not compared with your config (#{paired_rounds(confirmed.stay_gain)})" unless value
        word = if ahead?(confirmed.stay_gain) then "ahead"
        elsif confirmed.stay_gain.equivalent? then "equivalent within ±#{sig3(confirmed.band_pct)}%"
        elsif confirmed.stay_gain.significant? && value < 1 then "behind"
        else "not clear of it"
        end
        "#{head}: #{config}: #{ratio(value, interval)} over your config, #{word}"
      end

      # Why the best other config is not worth the change, in a few words.
      def keep_reason(confirmed)
        value, interval = confirmed.gain_ratio
        best = config(confirmed.pick.adapter)
        # Too few rounds of both (time ran out): no ratio to read.
        return "#{best}: the rounds could not compare it (#{paired_rounds(confirmed.gain)})" unless value
        if confirmed.gain.equivalent?
          "#{best} reads #{ratio(value, interval)} of it, equivalent within ±#{sig3(confirmed.band_pct)}%"
        elsif value < 1 && confirmed.gain.significant?
          "it serves #{ratio(1 / value, interval.reverse.map { |x| 1 / x })} the goodput of #{best}"
        else
          "#{best} reads #{ratio(value, interval)} of it, not clear of it"
        end
      end

      # Why a pair has no ratio, in a few words: how few rounds both ran
      # (the whole reason is in tune.json and report.md).
      def paired_rounds(d)
        n = d&.n.to_i
        "#{n} paired #{(n == 1) ? "round" : "rounds"}"
      end

      # The margin over the runner-up, from the same rounds.
      def margin(confirmed)
        other = confirmed.other
        return "the only config confirmed (#{confirmed.rounds} rounds)" unless other
        value, interval = confirmed.margin_ratio
        who = config(other.adapter)
        return "over #{who}: not compared (#{paired_rounds(confirmed.margin)})" unless value
        word = case confirmed.verdict&.word
        when "pick" then ahead?(confirmed.margin) ? "ahead" : "picked on #{confirmed.verdict.reason[/memory|p99/] || "goodput"}"
        when "equivalent" then "equivalent within ±#{sig3(confirmed.band_pct)}%"
        # More goodput against a faster p99 (Verdicts::Pick): a trade-off, not a tie.
        when "trade-off" then "a trade-off: #{(value >= 1) ? who : "it"} answers faster (p99)"
        else "not distinguishable"
        end
        "#{pct(value)} over #{who}: #{ratio(value, interval)}, #{word} (#{confirmed.rounds} rounds)"
      end

      def ahead?(d) = Confirmed.ahead?(d)

      # What it ran on and the settings a core got: "on 1 of 2 cores, 3.81 GiB: 1 process per core, 4 threads each".
      def measured_on(adapter, server_cores:, cores:, memory_kb:)
        processes = processes(adapter)
        per_core = processes.fdiv(server_cores)
        threads = adapter.request_threads
        mem = memory_kb ? ", #{sig3(memory_kb / 1024.0**2)} GiB" : ""
        line = "on #{server_cores} of #{cores} #{(cores == 1) ? "core" : "cores"}#{mem}: " \
          "#{sig3(per_core)} #{(per_core == 1) ? "process" : "processes"} per core"
        line += ", #{threads} #{(threads == 1) ? "thread" : "threads"} each" if threads
        line += " (not measured past #{server_cores} #{(server_cores == 1) ? "core" : "cores"})" if server_cores < 2
        line
      end

      # What the answer becomes on the machine's cores (Scaling::Result), in
      # lines: ["on 2 cores: iodine workers=2 threads=4: 1.93× (1.85–2.01) one core",
      # "on N cores: N× the processes, if the database keeps up (measured to 2)"],
      # or why it was not measured.
      def scaling(result)
        return ["on #{result.cores} cores: not measured (#{result.why})"] unless result.measured?
        value, interval = result.factor
        ["on #{result.cores} cores: #{config(result.many)}: #{ratio(value, interval)} one core",
          "on N cores: N× the processes, if the database keeps up (measured to #{result.cores})"]
      end

      # Your server's best config on every core against one, beside the
      # answer's (Scaling::Result#stay): "stay on puma, on 2 cores:
      # workers=2 threads=5: 1.87× (1.62–2.15) one core", or why not; nil
      # when it did not join the cores rounds' plan.
      def stay_cores(result, server)
        stay = result&.stay
        return nil unless stay
        head = "stay on #{server}, on #{stay.cores} cores"
        return "#{head}: not measured (#{stay.why})" unless stay.measured?
        value, interval = stay.factor
        "#{head}: #{settings(stay.many.settings.slice(*stay.many.class.tunables.keys))}: #{ratio(value, interval)} one core"
      end

      # The answer's memory on the whole box, against the budget (--memory):
      # "memory on 2 cores: 2 processes, 128 MiB PSS (measured), within
      # --memory 17.6 GiB". The PSS is the cores rounds' own where they ran,
      # else the rounds' PSS times the box's cores over the server's (a
      # process's pages that others share are counted once per share, so
      # the estimate errs high). Over the budget, how many processes fit.
      def box_memory(scaling, pss_kb:, budget_mib:, server_cores:)
        return nil unless scaling&.one && pss_kb && budget_mib && server_cores.to_i.positive?
        per_core = processes(scaling.one).fdiv(server_cores)
        box = [(per_core * scaling.cores).round, 1].max
        total_kb, how = (scaling.measured? && scaling.pss_kb) ? [scaling.pss_kb, "measured"] : [pss_kb * scaling.cores / server_cores.to_f, "estimated"]
        head = "memory on #{scaling.cores} cores: #{box} #{(box == 1) ? "process" : "processes"}, " \
          "#{Support::Format.memory_kb(total_kb)} PSS (#{how})"
        budget = Support::Format.memory_kb(budget_mib * 1024)
        return "#{head}, within --memory #{budget}" if total_kb <= budget_mib * 1024
        fit = (budget_mib * 1024 / (total_kb / box)).floor
        "#{head}, over --memory #{budget}: #{fit} #{(fit == 1) ? "process fits" : "processes fit"}"
      end

      # Serving processes: a server's workers (Puma's single mode is one).
      def processes(adapter)
        s = adapter.settings
        n = s["workers"] || s["count"] || s["processes"] || s["pool"] || s["servers"] || 1
        [n.to_i, 1].max
      end

      # The absolute figures, medians of the counted rounds with their
      # interval, and the machine speed they were taken at.
      def absolute(confirmed)
        iv = confirmed.rps
        rate = (iv&.low && iv.high) ? "#{sig3(iv.median)} req/s (#{sig3(iv.low)}–#{sig3(iv.high)})" : "#{sig3(iv&.median)} req/s"
        line = "#{rate} closed-loop"
        line += ", p99 #{sig3(confirmed.p99_ms)} ms" if confirmed.p99_ms
        line += ", PSS #{sig3(confirmed.pss_kb / 1024.0)} MiB" if confirmed.pss_kb
        line
      end

      # The machine's speed in the counted rounds (Probes::MachineSpeed), against its median over the run.
      def speed(confirmed)
        slow, fast = confirmed.speed_range.map { |x| sig3(x, trim: false) }
        "measured at #{(slow == fast) ? slow : "#{slow}–#{fast}"}× the machine's median speed"
      end

      # head and items, comma-separated, in lines of at most 100 columns
      # (an item that does not fit starts an indented line of its own).
      def listed(head, items)
        items.each_with_object([head]) do |item, lines|
          if lines.last == head then lines[-1] = "#{head} #{item}"
          elsif lines.last.size + item.size + 2 <= 100 then lines[-1] = "#{lines.last}, #{item}"
          else lines << "  #{item}"
          end
        end
      end

      # Lines cut to `width` columns (a path or a command to copy is never cut: it is copied whole).
      def fit(line, width: 100)
        return line if line.size <= width || line.match?(%r{\A\s*(config file|results): /|`arena tune --resume })
        "#{line[0, width - 1]}…"
      end
    end
  end
end
