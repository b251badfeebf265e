# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../../verdicts/breakpoint"
require_relative "../breakpoint_chart"
require_relative "../side"

module Arena
  module Report
    module Sides
      # What the report says and draws of a break point: the last clean level
      # and where it broke, throughput and p99 against concurrency.
      class Breakpoint < Side
        side_of "breakpoint"

        def finding(m)
          return nil unless m.summary?
          x = m.extra
          clean = x["last_clean_connections"] ? "last clean at #{x["last_clean_connections"]} connections (#{Support::Format.rps(x["last_clean_rps"])} req/s)" : "no clean level"
          "#{m.server} #{m.workload} breakpoint: #{clean}; #{Verdicts::Breakpoint.outcome_words(x)}"
        end

        # "broke at 100 connections; last clean 50 (10.7k req/s)".
        def brief(m)
          return nil unless m.summary?
          x = m.extra
          word = x["verdict"] || (x["broke_at_connections"] ? "broke" : "did not break")
          word = "broke at #{x["broke_at_connections"] || x["verdict_reason"].to_s[/\Aat (\d+) connections/, 1]} connections" if word == "broke"
          clean = x["last_clean_connections"] ? "last clean #{x["last_clean_connections"]} (#{Support::Short.rate(x["last_clean_rps"])} req/s)" : "no clean level"
          ["breakpoint", "#{word}; #{clean}"]
        end

        def sections(document, colors:) = [BreakpointChart.new(document, colors: colors).section].compact
      end
    end
  end
end
