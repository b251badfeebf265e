# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../side"
require_relative "../sustained_chart"

module Arena
  module Report
    module Sides
      # What the report says and draws of the sustained scenario: each
      # config's sustained rate, and the rate against memory (SustainedChart).
      class Sustained < Side
        side_of "sustained"

        def sections(document, colors:) = [SustainedChart.new(document, scenario: scenario, colors: colors).section].compact

        def finding(m)
          return nil unless m.summary?
          x = m.extra
          rate = x["sustained_rps"].to_f.positive? ? "#{Support::Format.rps(x["sustained_rps"])} req/s" : "no rate"
          "#{m.server} #{m.workload}: sustains #{rate} with p99 <= #{x["slo_ms"]} ms " \
            "(closed maximum #{Support::Format.rps(x["closed_max_rps"])} req/s, PSS #{x["pss_mib"] || "-"} MiB)"
        end

        # "6.79k req/s at p99 ≤ 100 ms; closed max 9.06k, PSS 123 MiB".
        def brief(m)
          return nil unless m.summary?
          x = m.extra
          s = Support::Short
          rate = x["sustained_rps"].to_f.positive? ? "#{s.rate(x["sustained_rps"])} req/s" : "no rate"
          ["sustained", "#{rate} at p99 ≤ #{s.sig(x["slo_ms"].to_f)} ms; closed max #{s.rate(x["closed_max_rps"])}, " \
            "PSS #{x["pss_mib"] ? s.memory_kb(x["pss_mib"].to_f * 1024) : "-"}"]
        end

        def rounds_finding(ms) = finding(ms.first)

        def rounds_brief(ms) = brief(ms.first)
      end
    end
  end
end
