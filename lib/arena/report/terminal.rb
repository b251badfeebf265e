# frozen_string_literal: true

require "terminal-table"
require "ruby-progressbar"

module Arena
  module Report
    # The summary table, from a results document. Pure: takes the document,
    # returns text, so it is tested against whole rendered tables.
    class Table
      HEADINGS = ["server", "workload", "scenario", "good req/s ±95%", "ratio ±95%", "errors", "p50", "p99 (rounds)", "max", "PSS peak", "RSS peak", "CPU"].freeze

      def initialize(document)
        @document = document
      end

      def render
        rows = Rows.from(@document)
        return "no measurements\n" if rows.empty?
        table = ::Terminal::Table.new(headings: HEADINGS, rows: rows.map { |r| cells(r) })
        (3..11).each { |i| table.align_column(i, :right) }
        "#{table}\n"
      end

      # What the connection did: keep-alive asked of a server that closes
      # every connection (Unicorn, Pitchfork) reads "closed by server".
      def relative = @relative ||= @document ? Relative.of(Rows.from(@document)) : {}

      def label(r) = r.flags.include?("server-closed") ? r.label.sub("keep-alive", "closed by server") : r.label

      # Throughput is goodput, the median over the rounds ± the half-width of
      # its 95% interval; a row with errors over 1% is marked "!", one whose
      # latency is a fixed delay (lib/arena/verdicts/stall.rb) "stalled", one with
      # noisy rounds left out "(N noisy out)", one that got no response and
      # no error at all "unanswered" (a hung server). Beside it, the row's
      # ratio to its group's reference (Relative: paired on the rounds).
      def cells(r)
        [r.server, r.workload, label(r), "#{Format.rps_spread(r)}#{" !" if r.erroneous?}#{" unanswered" if r.unanswered?}#{" stalled" if r.stalled?}#{" (#{r.noisy_out} noisy out)" if r.noisy_out.to_i.positive?}",
          relative[Relative.key(r)]&.to_s || "-", Format.error_pct(r.error_pct),
          Format.duration_us(r.p50_us), Format.p99_spread(r), Format.duration_us(r.max_us),
          Format.memory_kb(r.pss_peak_kb), Format.memory_kb(r.rss_peak_kb), "#{r.cpu_pct.round}%"]
      end
    end

    # Reports a run as it happens to a terminal (or any stream): a progress bar
    # on a TTY, one line per event otherwise, the table at the end.
    class Terminal
      def initialize(out: $stdout, err: $stderr)
        @out = out
        @err = err
      end

      def planned(plan, total)
        @plan = plan
        @err.puts "arena: #{plan.servers.size} server config(s) x #{plan.workloads.size} workload(s) x " \
          "#{plan.scenarios.join("+")}, #{plan.load.connections} connections, results in #{plan.out_dir}"
        return unless @err.tty?
        @bar = ProgressBar.create(total: [total, 1].max, output: @err, format: "%t |%B| %c/%C %e", title: "arena")
      end

      def server_started(server)
        say "#{server.label} #{server.version} ready in #{server.boot_s}s#{knobs(server.command)}; verified " +
          server.verify.map { |v| "#{v.workload} #{v.ok ? "ok" : "FAILED (#{v.problems.join("; ")})"}" }.join(", ")
      end

      # Rails' knobs the server started with (lib/arena/servers/rails_knobs.rb).
      def knobs(command)
        set = Array(command).drop(1).take_while { |word| word.match?(/\A(#{RailsKnobs::NAMES.join("|")})=/o) }
        (command&.first == "env" && set.any?) ? " with #{set.join(" ")}" : ""
      end

      def server_failed(label, message, log_tail)
        say "FAILED #{message}"
        log_tail.each { |line| say "  | #{line}" }
      end

      def timed(key, round, words) = say("#{key} (round #{round}): #{words}")

      def measured(m)
        @bar&.increment if m.measured?
        return live_finding(m) unless m.measured?
        return if @bar
        say format("%s %s %s: %s good req/s, p99 %s, %s errors%s", m.server, m.workload, m.label, Format.rps(m.good_rps),
          Format.percentile_us(m.load.latency.p99, m.load.latency.n, :p99), Format.error_pct(m.load.error_pct),
          m.flags.empty? ? "" : " [#{m.flags.join(", ")}]")
      end

      def finished(document, interrupted:)
        @bar&.stop
        say "interrupted: the results measured so far are kept" if interrupted
        @out.print Table.new(document).render
        @out.print PerRequest.render(document)
        @out.print QueueWork.render(document)
        Findings.lines(document).each { |line| @out.puts line }
      end

      private

      # A finding as it comes, unless its scenario answers once over several
      # rounds (Findings.scenario_lines says it at the end).
      def live_finding(m)
        scenario = Scenarios.registry[m.scenario]
        return if scenario&.round_key(m) && @plan&.rounds_for(scenario.long?).to_i > 1
        (line = Findings.line(m)) && say(line)
      end

      def say(line)
        @bar ? @bar.log(line) : @err.puts(line)
      end
    end
  end
end
