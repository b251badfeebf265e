# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../charts"
require_relative "../side"
require_relative "../svg/bars"

module Arena
  module Report
    module Sides
      # What the report says and draws of slow clients: the good throughput a
      # config keeps beside them, against its throughput alone.
      class SlowClients < Side
        side_of "slow-clients"

        def finding(m)
          x = m.extra
          return nil unless x["count"]
          "#{m.server} #{m.workload} slow-clients: with #{x["count"]} slow #{x["mode"]} clients good throughput is " \
            "#{(100 * x["rps_ratio"].to_f).round}% of alone"
        end

        # "2 slow headers clients: good throughput 4.12% of alone".
        def brief(m)
          x = m.extra
          return nil unless x["count"]
          ["slow-clients", "#{x["count"]} slow #{x["mode"]} clients: good throughput #{Support::Short.pct(100 * x["rps_ratio"].to_f)} of alone"]
        end

        def sections(document, colors:)
          pairs = document.measured.select { |m| m.scenario == scenario.key && m.extra["rps_ratio"] }
          return [] if pairs.empty?
          f = Support::Format
          svg = Svg::Bars.new(title: "Slow clients", categories: pairs.map { |m| "#{m.server} · #{m.workload}" },
            x_label: "good requests per second", format: ->(v) { f.rps(v) }, series: [
              {name: "alone", values: pairs.map { |m| m.extra["rps_alone"].to_f }, color: "#0072B2"},
              {name: pairs.first.variant, values: pairs.map(&:good_rps), color: "#D55E00"}
            ]).render
          [Section.new(id: "slow-clients", title: "Slow clients", charts: [{title: "Throughput alone and beside slow clients", svg: svg}],
            note: "The same steady load twice: alone, then while slow connections trickle their requests (no proxy in front).",
            headings: ["server", "workload", "with", "req/s alone", "req/s with", "share kept", "p99 alone", "p99 with"],
            rows: pairs.map do |m|
              [m.server, m.workload, m.variant, f.rps(m.extra["rps_alone"].to_f), f.rps(m.good_rps),
                "#{(100 * m.extra["rps_ratio"]).round}%", f.duration_us(m.extra["p99_us_alone"]), f.duration_us(m.load.latency.p99)]
            end)]
        end
      end
    end
  end
end
