# frozen_string_literal: true

require "terminal-table"
require_relative "../launch/local_server"
require_relative "../scenarios/base"
require_relative "../support/format"
require_relative "brief"
require_relative "brief_findings"
require_relative "findings"
require_relative "labels"
require_relative "per_request"
require_relative "progress"
require_relative "queue_work"
require_relative "relative"
require_relative "rows"

module Arena
  module Report
    # The summary table, from a results document. Pure: takes the document,
    # returns text, so it is tested against whole rendered tables.
    #
    # Rows are grouped by workload and scenario, the highest goodput first
    # (Rows.grouped), and a server reads by the settings that differ from its
    # defaults (Labels). `render` is the terminal's: about 120 columns, the
    # workload and scenario heading each group; `cells` (every column, under
    # HEADINGS) is report.md's and report.html's.
    class Table
      HEADINGS = ["server", "workload", "scenario", "good req/s ±95%", "ratio ±95%", "errors", "p50", "p99 (rounds)", "max", "PSS peak", "RSS peak", "CPU"].freeze
      COMPACT = ["server", "good req/s ±95%", "× top ±95%", "n", "errors", "p50", "p99 (rounds)", "PSS peak", "CPU"].freeze
      LEGEND = "n: rounds · ±: the 95% interval · × top: goodput over the group's top row, paired on the rounds (≈ within ±3%)\n" \
        "p99 (its lowest-highest round, in its unit) · max, RSS and each server's full config: report.md\n"

      def initialize(document)
        @document = document
        @labels = Labels.new(document)
      end

      # The rows in the order every renderer shows them.
      def rows = Rows.grouped(@document).flat_map(&:last)

      def render
        groups = Rows.grouped(@document)
        return "no measurements\n" if groups.empty?
        table = ::Terminal::Table.new(headings: COMPACT)
        groups.each_with_index do |((workload, scenario, variant), rows), i|
          table.add_separator if i.positive?
          title = "#{workload} · #{[scenario, variant].compact.join(" ")}"
          table.add_row [{value: title, colspan: COMPACT.size, alignment: :left}]
          table.add_separator
          rows.each { |r| table.add_row(compact(r)) }
        end
        (1...COMPACT.size).each { |i| table.align_column(i, :right) }
        "#{table}\n#{LEGEND}"
      end

      def server(r) = @labels.call(r.server)

      # Each row against its group's fastest (Relative: paired on the rounds).
      def relative = @relative ||= @document ? Relative.of(Rows.from(@document), baseline: @document.plan&.raw&.[]("baseline")) : {}

      # What the connection did: keep-alive asked of a server that closes
      # every connection (Unicorn, Pitchfork) reads "closed by server".
      def label(r) = closed?(r) ? r.label.sub("keep-alive", "closed by server") : r.label

      # Throughput is goodput, the median over the rounds ± the half-width of
      # its 95% interval; a row with errors over 1% is marked "!", one whose
      # latency is a fixed delay (lib/arena/verdicts/stall.rb) "stalled", one with
      # noisy rounds left out "(N noisy out)", one that got no response and
      # no error at all "unanswered" (a hung server). Beside it, the row's
      # ratio to its group's reference (Relative: paired on the rounds).
      def cells(r)
        [server(r), r.workload, label(r), goodput(r), relative[Relative.key(r)]&.to_s || "-", Support::Format.error_pct(r.error_pct),
          Support::Format.duration_us(r.p50_us), Format.p99_spread(r), Support::Format.duration_us(r.max_us),
          Support::Format.memory_kb(r.pss_peak_kb), Support::Format.memory_kb(r.rss_peak_kb), "#{r.cpu_pct.round}%"]
      end

      # The terminal's row: the group heading holds the workload and scenario,
      # n the rounds (so a figure without ± needs no words), the ratio is to
      # the group's top row (named once, by its place), and a server that
      # closes every connection asked to keep alive says so beside its name.
      def compact(r)
        [closed?(r) ? "#{server(r)} (no keep-alive)" : server(r), goodput(r, spread: Format.rps_spread(r).sub(" (no interval)", "")),
          ratio(relative[Relative.key(r)]), r.runs, Support::Format.error_pct(r.error_pct), Support::Format.duration_us(r.p50_us), p99(r),
          Support::Format.memory_kb(r.pss_peak_kb), "#{r.cpu_pct.round}%"]
      end

      private

      def closed?(r) = r.variant == "keep-alive" && r.flags.include?("server-closed")

      def goodput(r, spread: Format.rps_spread(r))
        "#{spread}#{" !" if r.erroneous?}#{" unanswered" if r.unanswered?}#{" stalled" if r.stalled?}" \
          "#{" (#{r.noisy_out} noisy out)" if r.noisy_out.to_i.positive?}"
      end

      # "204.9ms (103-307)": the rounds' range in the p99's own unit.
      def p99(r)
        text = Format.p99_spread(r)
        return text unless text.end_with?(")")
        figure = text[/\A\S+/]
        unit = {"us" => 1.0, "ms" => 1e3, "s" => 1e6}.fetch(figure[/[a-z]+\z/])
        "#{figure} (#{short(r.p99_min_us / unit)}-#{short(r.p99_max_us / unit)})"
      end

      def short(value)
        if value >= 100 then value.round.to_s
        elsif value >= 1 then format("%.1f", value)
        else format("%.2f", value)
        end
      end

      # "0.55× ±3%", "0.98× ±1.2% ≈"; "-" for the top row itself and a row alone.
      def ratio(value)
        return "-" if value.nil? || value.reference?
        "#{format("%.2f", value.ratio)}×#{" ±#{Support::Format.pct(value.half_pct)}" if value.half_pct}#{" ≈" if value.difference.equivalent?}"
      end
    end

    # Reports a run as it happens to a terminal (or any stream): one progress
    # line (Progress) instead of a line per measurement, every failure on a
    # line of its own, the summary at the end (Brief). verbose: a line per
    # measurement and per server started as well, and the detail at the end.
    class Terminal
      def initialize(out: $stdout, err: $stderr, verbose: false, clock: Support::Clock.method(:now))
        @out = out
        @err = err
        @verbose = verbose
        @clock = clock
        @labels = Labels.new(nil)
      end

      def planned(plan, total)
        @plan = plan
        # What the run does and how long it takes are the estimate's, just said.
        @err.puts "arena: #{plan.load.connections} connections; results in #{plan.out_dir}"
        @labels = Labels.new(nil, machine: plan.machine)
        # A log that has every measurement's line needs no progress lines between them.
        return if @verbose && !@err.tty?
        @progress = Progress.new(io: @err, total: total, rounds: plan.rounds, clock: @clock)
      end

      # A server's start is a line of its own under --verbose, when a
      # verification failed, when it took a second start or when Rails' knobs
      # were set for it; otherwise the progress line's phase says it (its
      # version and command: report.md).
      def server_started(server)
        unless @verbose || server.boot_retry || !server.verify.all?(&:ok) || !knobs(server.command).empty?
          @progress&.phase("started #{@labels.call(server.label)}")
          return
        end
        say "#{server.label} #{server.version} ready in #{server.boot_s}s#{Launch::LocalServer.retried(server.boot_retry)}#{knobs(server.command)}; verified " +
          server.verify.map { |v| "#{v.workload} #{v.ok ? "ok" : "FAILED (#{v.problems.join("; ")})"}" }.join(", ")
      end

      # Rails' knobs the server started with (lib/arena/servers/rails_knobs.rb).
      def knobs(command)
        set = Array(command).drop(1).take_while { |word| word.match?(/\A(#{Servers::RailsKnobs::NAMES.join("|")})=/o) }
        (command&.first == "env" && set.any?) ? " with #{set.join(" ")}" : ""
      end

      # The message whole (it names the crash line), led by the config when
      # it does not name it (a failure after the start: "load engine: …");
      # of the log's tail, the last TAIL_SHOWN lines cut to the terminal's
      # width: results.json and report.md keep the whole tail, the server's
      # log everything.
      def server_failed(label, message, log_tail)
        say "FAILED #{message.include?(label) ? message : "#{label}: #{message}"}"
        log_tail.last(TAIL_SHOWN).each { |line| say BriefFindings.fit("  | #{line}") }
      end

      TAIL_SHOWN = 10

      def timed(key, round, words) = say("#{key} (round #{round}): #{words}")

      # A measurement that found something (a scenario's finding, a failed
      # load) says it on its own line; the rest advance the progress line.
      def measured(m)
        return live_finding(m) unless m.measured?
        say(measurement_line(m)) if @verbose
        @progress&.step(server: @labels.call(m.server), round: m.repeat, rerun: m.rerun ? true : false)
      end

      # The summary (Brief: the tables, a line per finding); --verbose adds
      # the detail before it: each request of a mix, the waiting/working
      # split, every finding's whole reason. The pick comes after the paths
      # (Commands::Run), last.
      def finished(document, interrupted:)
        @progress&.finish
        say "interrupted: the results measured so far are kept" if interrupted
        if @verbose
          @out.print PerRequest.render(document)
          @out.print QueueWork.render(document)
          Findings.lines(document).each { |line| @out.puts line }
        end
        Brief.new(document).summary_lines.each { |line| @out.puts line }
        @out.flush
      end

      private

      # A finding as it comes, in its short line, unless its scenario answers
      # once over several rounds (the summary says it at the end).
      def live_finding(m)
        scenario = Scenarios.registry[m.scenario]
        return if scenario&.round_key(m) && @plan&.rounds_for(scenario.long?).to_i > 1
        line = BriefFindings.scenario_line(m, labels: @labels, workload: @plan&.workloads.to_a.size > 1)
        line && say(line)
      end

      def measurement_line(m)
        format("%s %s %s: %s good req/s, p99 %s, %s errors%s", m.server, m.workload, m.label, Support::Format.rps(m.good_rps),
          Format.percentile_us(m.load.latency.p99, m.load.latency.n, :p99), Support::Format.error_pct(m.load.error_pct),
          m.flags.empty? ? "" : " [#{m.flags.join(", ")}]")
      end

      def say(line)
        @progress ? @progress.say(line) : @err.puts(line)
      end
    end
  end
end
