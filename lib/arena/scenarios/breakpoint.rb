# frozen_string_literal: true

module Arena
  module Scenarios
    # The method of the nginx comparison (seed 003): raise concurrency until
    # errors pass 1% or p99 passes the SLO; the answer is the last clean
    # concurrency and its throughput. Levels start low (1, 2, 4, ... below
    # the step, then the step and its multiples), so a server that breaks
    # early is seen breaking. Bounded by --max-connections and by --max-time
    # over all levels.
    class Breakpoint < Base
      scenario "breakpoint", "raise concurrency 1, 2, 4, ... then by --step until errors or p99 > SLO; last clean level"
      setting :step, flag: "--step N", type: Integer, default: 100, check: 1..10_000, help: "breakpoint: connections added per level after 1, 2, 4, ..."
      setting :max_connections, flag: "--max-connections N", type: Integer, default: 1000, check: 1..20_000, help: "breakpoint: highest level tried"

      def planned(load, _adapter) = self.class.levels(load).size

      def self.long? = true

      def self.bound = :max_time

      # Every level (it may break sooner); a level begun before the deadline runs to its end.
      def self.seconds(guess) = [levels(guess.load).size * guess.measurement_s, guess.load.unit_bound_s + guess.measurement_s].min

      def self.levels(load)
        low = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024].select { |c| c < load.step }
        (low + (load.step..load.max_connections).step(load.step).to_a).select { |c| c <= load.max_connections }
      end

      def call(ctx)
        deadline = Support::Clock.now + ctx.load.unit_bound_s
        slo_ms = ctx.slo_ms
        levels = []
        self.class.levels(ctx.load).each do |connections|
          break if Support::Clock.now >= deadline
          record = measure(ctx, ctx.settings(connections: connections), variant: "c=#{connections}")
          levels << record
          break if broken?(record, slo_ms)
        end
        [*levels, summary(ctx, levels, slo_ms)]
      end

      def self.finding(m)
        return nil unless m.summary?
        x = m.extra
        clean = x["last_clean_connections"] ? "last clean at #{x["last_clean_connections"]} connections (#{Support::Format.rps(x["last_clean_rps"])} req/s)" : "no clean level"
        "#{m.server} #{m.workload} breakpoint: #{clean}; #{Verdicts::Breakpoint.outcome_words(x)}"
      end

      # "broke at 100 connections; last clean 50 (10.7k req/s)".
      def self.brief(m)
        return nil unless m.summary?
        x = m.extra
        word = x["verdict"] || (x["broke_at_connections"] ? "broke" : "did not break")
        word = "broke at #{x["broke_at_connections"] || x["verdict_reason"].to_s[/\Aat (\d+) connections/, 1]} connections" if word == "broke"
        clean = x["last_clean_connections"] ? "last clean #{x["last_clean_connections"]} (#{Support::Short.rate(x["last_clean_rps"])} req/s)" : "no clean level"
        ["breakpoint", "#{word}; #{clean}"]
      end

      def self.sections(document, colors:) = [BreakpointChart.new(document, colors: colors).section].compact

      private

      def broken?(m, slo_ms) = !Verdicts::Breakpoint.level(m, slo_ms).broken_because.nil?

      def summary(ctx, levels, slo_ms)
        judged = levels.map { |m| Verdicts::Breakpoint.level(m, slo_ms) }
        verdict = Verdicts::Breakpoint.judge(judged, planned: self.class.levels(ctx.load).size)
        broke_at = judged.index(&:broken_because)
        clean = Verdicts::Breakpoint.last_clean(judged)
        summary_record(ctx, "summary", "step" => ctx.load.step, "slo_ms" => slo_ms,
          "last_clean_connections" => clean&.connections, "last_clean_rps" => clean&.rps,
          "broke_at_connections" => broke_at && judged[broke_at].connections, "broke_because" => broke_at && judged[broke_at].broken_because,
          "levels" => levels.size, "verdict" => verdict.word, "verdict_reason" => verdict.reason)
      end
    end

    # Throughput and p99 against concurrency, the last clean level marked.
    class BreakpointChart
      def initialize(document, colors:)
        @levels = document.measured.select { |m| m.scenario == "breakpoint" }
        @found = document.measurements.select { |m| m.scenario == "breakpoint" && m.summary? }
        @colors = colors
      end

      def section
        return nil if @levels.empty?
        table = []
        charts = @levels.group_by(&:workload).flat_map { |workload, group| charts(workload, group, table) }
        Report::Section.new(id: "breakpoint", title: "Break points", charts: charts,
          note: "Concurrency raised level by level until errors pass 1% or p99 (of good responses) passes the SLO. " \
                "The ring marks the last clean level.",
          headings: ["server", "workload", "connections", "good req/s", "p99", "errors"], rows: table)
      end

      private

      def charts(workload, group, table)
        svg = Report::Svg
        by_server = group.group_by(&:server)
        rps = by_server.map { |server, ms| line(server, ms, &:good_rps) }
        p99 = by_server.map { |server, ms| line(server, ms) { |m| m.load.latency.p99 } }
        marks = @found.select { |s| s.workload == workload }.filter_map { |s| mark(s, by_server[s.server] || []) }
        by_server.each do |server, ms|
          ms.each do |m|
            table << [server, workload, connections(m), Support::Format.rps(m.good_rps),
              Report::Format.percentile_us(m.load.latency.p99, m.load.latency.n, :p99), m.load.errors]
          end
        end
        slo = (@found.first&.extra || {}).fetch("slo_ms", 100).to_f * 1000
        [{title: "Break point: #{workload}, throughput", svg: svg::Lines.new(title: "Break point throughput #{workload}", series: rps,
          marks: marks, x_label: "concurrent connections", y_label: "good requests per second", x_format: ->(v) { v.round.to_s },
          y_format: ->(v) { svg.count_tick(v) }, height: 340).render},
          {title: "Break point: #{workload}, p99", svg: svg::Lines.new(title: "Break point p99 #{workload}", series: p99,
            hlines: [{y: slo, label: "SLO: p99 ≤ #{svg.duration_tick(slo)}"}], x_label: "concurrent connections",
            y_label: "p99 latency (log scale)", x_format: ->(v) { v.round.to_s }, y_format: ->(v) { svg.duration_tick(v) },
            log_y: true, y_zero: false, height: 300).render}]
      end

      def line(server, ms)
        {name: server, color: @colors.call(server), points: ms.map { |m| [connections(m), yield(m)] }.sort_by(&:first)}
      end

      def mark(summary, ms)
        clean = summary.extra["last_clean_connections"]
        level = ms.find { |m| connections(m) == clean }
        return nil unless level
        broke = if summary.extra["broke_at_connections"] then ", broke at #{summary.extra["broke_at_connections"]}"
        elsif summary.extra["verdict"] == "stopped" then ", stopped by --max-time"
        else ", never broke"
        end
        {x: clean, y: level.good_rps, color: @colors.call(summary.server), label: "clean at #{clean}#{broke}"}
      end

      def connections(m) = m.settings&.connections || m.load.connections_requested
    end
  end
end
