# frozen_string_literal: true

require_relative "../scenarios/base"
require_relative "../servers/base"
require_relative "../support/short"
require_relative "../verdicts/limits"
require_relative "../verdicts/stall"
require_relative "aa"
require_relative "envelope_lines"
require_relative "findings"
require_relative "rows"
require_relative "side"

module Arena
  module Report
    # The terminal's findings: one line each. A row's flag is at most
    # Brief::WIDTH columns: the config, the flag, and the one number that
    # shows it ("agoo  stalled  p99 102 ms at 10% CPU: its 100 ms poll
    # (poll_timeout)"); the reasons, the arithmetic behind them and what to
    # try are report.md's and report.html's, under the same flag (Findings).
    # A finding that is not a row's flag is said the same way: a scenario's
    # by its `brief` ("puma  crash  worker replaced, 0 errors, no lasting
    # effect, longest 64.5 ms"), the A/A check's, the envelope's and a known
    # fault's here; their whole sentences are report.md's and report.html's.
    class BriefFindings
      # The flags said here, in this order; the rest change no reading.
      FLAGS = %w[unanswered errors oom-killed pool-exhausted stalled uneven under-concurrent batched loader-bound did-not-settle
        few-samples].freeze

      # A fixed delay's short name, by its length in ms (Verdicts::Stall::DELAYS).
      DELAY_NAMES = {40 => "delayed ACK (Nagle)", 100 => "poll or timer", 200 => "timer or delayed ACK"}.freeze

      def initialize(document, labels: Labels.new(document))
        @document = document
        @labels = labels
      end

      # One finding: its line for the terminal, and the whole of what the
      # reports say under it (the rule's reason, what to try).
      Entry = Struct.new(:line, :detail, keyword_init: true)

      def lines = entries.map(&:line)

      def entries
        rows = Rows.grouped(@document).flat_map(&:last)
        several = rows.map(&:workload).uniq.size > 1
        flagged = rows.flat_map do |r|
          (FLAGS & r.flags).filter_map do |flag|
            text = said(r, flag) or next
            Entry.new(line: line(r, flag, text, several), detail: detail(r, flag)).freeze
          end
        end
        flagged + noisy + others
      end

      # One line for the run: how many of its measurements the noise probe
      # read on a busy machine, each re-run once in its round (Rows keeps the
      # clean figure where the re-run was one).
      def noisy
        all = @document.measured
        busy = all.count(&:noisy?)
        return [] if busy.zero?
        kept = Rows.from(@document).sum { |r| r.flags.include?("noisy") ? 1 : 0 }
        line = "machine  noisy  #{busy} of #{all.size} measurements read while it was busy" \
          "#{"; #{kept} row#{(kept == 1) ? "'s" : "s'"} ± carry it" if kept.positive?}"
        [Entry.new(line: BriefFindings.fit(line), detail: "#{line}. Each busy measurement ran again in its round; " \
          "a row keeps its clean figure where the re-run was quiet (Noise: the machine's other work, read around each measurement).").freeze]
      end

      # At most Brief::WIDTH columns; a longer line ends in "…" (report.md has it whole).
      def self.fit(line, width = Brief::WIDTH) = (line.size > width) ? "#{line[0, width - 1]}…" : line

      # A scenario's finding as a measurement comes (Terminal, live): its
      # short line, the config by its short label.
      def self.scenario_line(m, labels:, workload: false)
        scenario = Scenarios.registry[m.scenario] or return nil
        side = Side.of(scenario)
        full = side.finding(m) or return nil
        short = side.brief(m)
        fit(short ? ["#{labels.call(m.server)}#{" on #{m.workload}" if workload}", *short].join("  ") : full)
      end

      private

      def line(r, flag, text, several)
        who = "#{@labels.call(r.server)}#{" on #{r.workload}" if several}"
        BriefFindings.fit("#{who}  #{flag}  #{text}")
      end

      # The findings that are not a row's flag, each its short line over its
      # whole sentence: the A/A check's, the scenarios' own (a scenario's
      # `brief` beside its `finding`), the envelope's, a server's known fault.
      def others = aa + scenario_entries + overall_entries + envelope_entries + fault_entries

      def aa
        AA.pairs(Rows.from(@document)).map { |p| entry([who(p.original.server, p.original.workload), *p.brief], p.line) }
      end

      def scenario_entries
        Findings.scenario_groups(@document).filter_map do |scenario, ms, rounds|
          full = Findings.sentence(scenario, ms, rounds) or next
          short = rounds ? Side.of(scenario).rounds_brief(ms) : Side.of(scenario).brief(ms.first)
          entry(short && [who(ms.first.server, ms.first.workload), *short], full)
        end
      end

      def overall_entries
        Scenarios.all.map { |scenario| Side.of(scenario) }.flat_map do |side|
          side.overall_findings(@document).zip(side.overall_briefs(@document, @labels)).map { |full, short| entry(short, full) }
        end
      end

      def envelope_entries
        EnvelopeLines.entries(@document).map { |server, workload, short, full| entry([who(server, workload), *short], full) }
      end

      # The fault's first clause ("12 responses could not be parsed"); its reason is report.md's.
      def fault_entries
        @document.measured.select { |m| m.summary&.fault }.map do |m|
          entry([who(m.server, m.workload), "fault", m.summary.fault.split(";").first], Findings.fault_line(m))
        end
      end

      # parts: [who, word, text] joined by two spaces (nil: the sentence, cut to fit).
      def entry(parts, full) = Entry.new(line: BriefFindings.fit(parts ? parts.join("  ") : full), detail: full).freeze

      # The config's short label, and its workload where the run had several.
      def who(server, workload)
        several = (@several ||= [@document.measurements.map(&:workload).uniq.size > 1]).first
        "#{@labels.call(server)}#{" on #{workload}" if several && workload}"
      end

      # What report.md says under a row's flag: its rule's reason (of the
      # row's first run with it) and how many of its runs had it.
      def detail(r, flag)
        runs = @document.measured.select { |m| same_row?(m, r) }
        flagged = runs.select { |m| m.flags.include?(flag) }
        s = flagged.first&.summary
        reason = {"stalled" => s&.stall, "uneven" => s&.uneven, "under-concurrent" => s&.concurrency, "batched" => s&.batched,
                  "pool-exhausted" => s&.pool}[flag] || Findings::FLAG_WORDS[flag] || flag
        note = (flag == "under-concurrent") ? Servers.registry[r.server.to_s.split(":", 2).first]&.concurrency_note : nil
        "#{r.server} #{r.workload} #{r.label}: #{flag}#{" (#{flagged.size} of #{runs.size} runs)" if runs.size > 1}: " \
          "#{reason}#{" (why: #{note})" if note}"
      end

      def same_row?(m, r) = [m.server, m.workload, m.scenario, m.variant] == [r.server, r.workload, r.scenario, r.variant]

      # The one number of a flag on a row, and what it means in a few words.
      def said(r, flag)
        s = first_summary(r, flag)
        case flag
        when "unanswered" then "no answer and no error for half the run or more: never picked"
        when "errors" then "#{Support::Short.pct(r.error_pct)} of requests failed: goodput counts the rest; never picked"
        when "oom-killed" then "the kernel killed it for memory#{" (#{Support::Short.memory_kb(r.pss_peak_kb)} PSS at its peak)" if r.pss_peak_kb.to_i.positive?}"
        when "pool-exhausted" then "connection pool ran dry: more threads than connections"
        when "stalled" then stalled(r, s)
        when "uneven" then uneven(s)
        when "under-concurrent" then under(s)
        when "batched" then "answers held in batches: Little's law reads #{Support::Short.rate(s&.loop_rps)} req/s"
        when "loader-bound" then "the load engine's core was over 85% busy: the figure may be the loader's"
        when "did-not-settle" then "the machine was still busy from the measurement before"
        when "few-samples" then few(r)
        end
      end

      # A row whose rounds together hold 100 good responses has its p99: nothing to say.
      def few(r)
        return nil if r.samples.to_i >= Verdicts::Limits::PERCENTILE_MIN_SAMPLES.fetch(:p99)
        "#{r.samples.to_i} good responses: a p99 needs #{Verdicts::Limits::PERCENTILE_MIN_SAMPLES.fetch(:p99)}, none is shown"
      end

      def first_summary(r, flag)
        @document.measured.find { |m| same_row?(m, r) && m.flags.include?(flag) }&.summary
      end

      # "p99 102 ms at 10% CPU: its 100 ms poll (poll_timeout)"; "40.1 ms a
      # request unexplained at 3% CPU: 40 ms delayed ACK (Nagle)": the
      # figures of the row's first stalled run, which are what the rule read
      # (the row's median p99 may be another round's), and in how many of
      # its rounds it stalled when not all.
      def stalled(r, _)
        runs = @document.measured.select { |m| same_row?(m, r) }
        m = runs.find { |x| x.flags.include?("stalled") }
        reason = m.summary.stall.to_s
        unexplained = reason[/([\d.]+) ms unexplained/, 1]&.to_f
        delay = Verdicts::Stall::DELAYS.find { |d| reason.include?(d.cause) }
        number = if reason.start_with?("p99") || unexplained.nil? then "p99 #{Support::Short.duration_us(m.load.latency.p99)}"
        else "#{Support::Short.duration_us(unexplained * 1000)} a request unexplained"
        end
        cpu = m.probes&.cpu_pct.to_f
        stalled = runs.count { |x| x.flags.include?("stalled") }
        "#{number}#{" at #{cpu.round}% CPU" if cpu.positive?}#{" in #{stalled} of #{runs.size} runs" if stalled < runs.size}: " \
          "#{cause(r, delay, unexplained)}"
      end

      def cause(r, delay, unexplained)
        return "no known fixed delay" unless delay
        setting = timed_setting(r.server, delay)
        return "its #{delay.ms} ms #{DELAY_NAMES.fetch(delay.ms).split(" or ").first} (#{setting})" if setting
        "a #{delay.ms} ms #{DELAY_NAMES.fetch(delay.ms)}"
      end

      # The config's setting whose value, in seconds, is the delay (Agoo's
      # poll_timeout=0.1 for 100 ms): named as the likely knob, read off the
      # config's full label, whatever the server.
      def timed_setting(server, delay)
        settings = server.to_s.split(":", 2)[1].to_s.split(/[+@]/, 2).first.to_s.split(",")
        settings.filter_map do |pair|
          name, value = pair.split("=", 2)
          seconds = Float(value.to_s, exception: false)
          name if seconds && value.include?(".") && (seconds * 1000 - delay.ms).abs < 0.5
        end.first
      end

      # "4 of 8 slots reachable: connections fell 16 and 0 over its workers".
      def uneven(s)
        return "its connections fell unevenly over its workers" unless s&.reachable_slots && s.declared_slots
        "#{s.reachable_slots} of #{s.declared_slots} slots reachable: its connections fell unevenly over its workers"
      end

      def under(s)
        return "it ran fewer requests at once than its settings declare" unless s&.busy_slots
        "#{Support::Short.sig(s.busy_slots.to_f)} of #{s.declared_slots || "its"} slots busy while requests waited before the app"
      end
    end
  end
end
