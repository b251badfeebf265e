# frozen_string_literal: true

require "terminal-table"
require "ruby-progressbar"

module Arena
  module Report
    # The summary table, from a results document. Pure: takes the document,
    # returns text, so it is tested against whole rendered tables.
    class Table
      HEADINGS = ["server", "workload", "scenario", "req/s", "p50", "p99", "max", "errors", "PSS peak", "RSS peak", "CPU"].freeze

      def initialize(document)
        @document = document
      end

      def render
        rows = Rows.from(@document)
        return "no measurements\n" if rows.empty?
        table = ::Terminal::Table.new(headings: HEADINGS, rows: rows.map { |r| cells(r) })
        (3..10).each { |i| table.align_column(i, :right) }
        "#{table}\n"
      end

      def cells(r)
        scenario = r.variant ? "#{r.scenario} #{r.variant}" : r.scenario
        [r.server, r.workload, scenario, Format.rps_spread(r), Format.duration_us(r.p50_us), Format.duration_us(r.p99_us),
          Format.duration_us(r.max_us), errors(r), Format.memory_kb(r.pss_peak_kb), Format.memory_kb(r.rss_peak_kb),
          "#{r.cpu_pct.round}%"]
      end

      def errors(r)
        return "0" if r.errors.zero?
        format("%d (%.2f%%)", r.errors, 100.0 * r.errors / [r.requests + r.errors, 1].max)
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
        @err.puts "arena: #{plan.servers.size} server config(s) x #{plan.workloads.size} workload(s) x " \
          "#{plan.scenarios.join("+")}, #{plan.load.connections} connections, results in #{plan.out_dir}"
        return unless @err.tty?
        @bar = ProgressBar.create(total: [total, 1].max, output: @err, format: "%t |%B| %c/%C %e", title: "arena")
      end

      def server_started(record)
        say "#{record["label"]} #{record["version"]} ready in #{record["boot_s"]}s; verified " +
          record["verify"].map { |v| "#{v["workload"]} #{v["ok"] ? "ok" : "FAILED (#{v["problems"].join("; ")})"}" }.join(", ")
      end

      def server_failed(label, message, log_tail)
        say "FAILED #{message}"
        log_tail.each { |line| say "  | #{line}" }
      end

      def measured(record)
        load = record["load"]
        @bar&.increment if load
        return say(Findings.line(record)) unless load
        return if @bar
        say format("%s %s %s%s: %s req/s, p99 %s, %d errors", record["server"], record["workload"], record["scenario"],
          record["variant"] ? " #{record["variant"]}" : "", Format.rps(load["throughput_rps"].to_f),
          Format.duration_us(load.dig("latency_us", "p99")), load.dig("errors", "total").to_i)
      end

      def finished(document, interrupted:)
        @bar&.stop
        say "interrupted: the results measured so far are kept" if interrupted
        @out.print Table.new(document).render
        Findings.lines(document).each { |line| @out.puts line }
      end

      private

      def say(line)
        @bar ? @bar.log(line) : @err.puts(line)
      end
    end
  end
end
