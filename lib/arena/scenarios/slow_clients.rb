# frozen_string_literal: true

module Arena
  module Scenarios
    # Normal steady load twice: alone, then beside N slow connections (default
    # 2 x workers). One-request-per-worker servers starve without a buffering
    # proxy; threaded and evented ones should barely notice.
    class SlowClientsScenario < Base
      scenario "slow-clients", "steady load with and without N slow connections (headers, upload or read)"
      setting :slow_clients, flag: "--slow-clients N", type: Integer, check: 1..10_000, help: "slow-clients: how many (default 2 x workers)"
      setting :slow_mode, flag: "--slow-mode MODE", type: Load::SlowClients::MODES, default: "headers", help: "slow-clients: headers, upload or read"
      figures :count, :mode, :bytes_trickled, :rps_alone, :p99_us_alone, :rps_ratio

      def planned(_load, _adapter) = 2

      def self.seconds(guess) = guess.measurement_s + guess.measurement_s(guess.load.warmup.to_f + guess.load.duration + 5)

      def call(ctx)
        count = ctx.load.slow_clients || 2 * ctx.adapter.workers
        alone = measure(ctx, ctx.settings, variant: "alone")
        slow = Load::SlowClients.new(bind: ctx.entry, count: count, mode: ctx.load.slow_mode,
          duration: (ctx.load.warmup || 0) + ctx.load.duration + 5)
        beside = measure(ctx, ctx.settings, variant: "with #{count} slow #{ctx.load.slow_mode}") do
          slow.start
          nil
        end
        held = slow.stop
        [alone, beside.with(extra: held.merge(compare(alone, beside)))]
      end

      def self.finding(m)
        x = m.extra
        return nil unless x["count"]
        "#{m.server} #{m.workload} slow-clients: with #{x["count"]} slow #{x["mode"]} clients good throughput is " \
          "#{(100 * x["rps_ratio"].to_f).round}% of alone"
      end

      # "2 slow headers clients: good throughput 4.12% of alone".
      def self.brief(m)
        x = m.extra
        return nil unless x["count"]
        ["slow-clients", "#{x["count"]} slow #{x["mode"]} clients: good throughput #{Support::Short.pct(100 * x["rps_ratio"].to_f)} of alone"]
      end

      def self.sections(document, colors:)
        pairs = document.measured.select { |m| m.scenario == key && m.extra["rps_ratio"] }
        return [] if pairs.empty?
        f = Support::Format
        svg = Report::Svg::Bars.new(title: "Slow clients", categories: pairs.map { |m| "#{m.server} · #{m.workload}" },
          x_label: "good requests per second", format: ->(v) { f.rps(v) }, series: [
            {name: "alone", values: pairs.map { |m| m.extra["rps_alone"].to_f }, color: "#0072B2"},
            {name: pairs.first.variant, values: pairs.map(&:good_rps), color: "#D55E00"}
          ]).render
        [Report::Section.new(id: "slow-clients", title: "Slow clients", charts: [{title: "Throughput alone and beside slow clients", svg: svg}],
          note: "The same steady load twice: alone, then while slow connections trickle their requests (no proxy in front).",
          headings: ["server", "workload", "with", "req/s alone", "req/s with", "share kept", "p99 alone", "p99 with"],
          rows: pairs.map do |m|
            [m.server, m.workload, m.variant, f.rps(m.extra["rps_alone"].to_f), f.rps(m.good_rps),
              "#{(100 * m.extra["rps_ratio"]).round}%", f.duration_us(m.extra["p99_us_alone"]), f.duration_us(m.load.latency.p99)]
          end)]
      end

      private

      def compare(alone, beside)
        a = alone.good_rps
        {"rps_alone" => a, "p99_us_alone" => alone.load.latency.p99,
         "rps_ratio" => a.positive? ? (beside.good_rps / a).round(3) : nil}
      end
    end
  end
end
