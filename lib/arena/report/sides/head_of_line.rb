# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../../verdicts/head_of_line"
require_relative "../side"

module Arena
  module Report
    module Sides
      # What the report says of head-of-line blocking: each fast request's
      # p50 and p99 alone and beside the slow one, and per workload which
      # config protects its fast requests best.
      class HeadOfLine < Side
        side_of "head-of-line"

        def finding(m)
          return nil unless m.scenario == scenario.key && m.summary?
          return "#{m.server} #{m.workload} head-of-line: not measured, #{m.extra["reason"]}" if m.extra["reason"]
          x = m.extra
          fast = x["fast"].map do |f|
            "#{f["request"]} p50 #{us(f["alone_p50_us"])}→#{us(f["beside_p50_us"])} (#{times(f["p50_x"])}), " \
              "p99 #{us(f["alone_p99_us"])}→#{us(f["beside_p99_us"])} (#{times(f["p99_x"])})"
          end
          "#{m.server} #{m.workload} head-of-line at #{format("%g", x["rate"])} req/s: beside #{format("%g", x["share_pct"])}% #{x["slow"]}, #{fast.join("; ")}"
        end

        # Across server configs, per workload: which protects its fast requests best.
        # "server p99 x194 beside 10% /sleep?ms=200 (203 ms)": the fast
        # request it slowed most.
        def brief(m)
          return nil unless m.scenario == scenario.key && m.summary?
          return ["head-of-line", scenario.not_measured(m.extra["reason"])] if m.extra["reason"]
          x = m.extra
          s = Support::Short
          f = x["fast"].max_by { |r| r["p99_x"].to_f }
          more = (x["fast"].size > 1) ? " (+#{x["fast"].size - 1} more)" : ""
          ["head-of-line", "#{f["request"]} p99 x#{s.sig(f["p99_x"].to_f)} beside #{s.sig(x["share_pct"].to_f)}% #{x["slow"]} " \
            "(#{s.duration_us(f["beside_p99_us"])})#{more}"]
        end

        # [workload, "head-of-line", "puma best: fast p90 x1.4 beside slow ones (unicorn x3.4)"],
        # the configs by their short labels; other verdicts by their word.
        def overall_briefs(document, labels)
          scenario.entries(document.measurements).group_by(&:first).map do |workload, pairs|
            v = Verdicts::HeadOfLine.best(pairs.map(&:last))
            figures = v.reason.to_s.match(/was (x[\d.]+) their median alone, against (x[\d.]+) on (\S+)/)
            winner = v.word[/\A(.+) protects fast requests best\z/, 1]
            text = (winner && figures) ? "#{winner} best: fast p90 #{figures[1]} beside slow ones (#{figures[3]} #{figures[2]})" : v.word
            names = pairs.map { |_, e| e.server }.uniq.sort_by { |n| -n.size }
            [workload, "head-of-line", names.reduce(text) { |t, n| t.gsub(n, labels.call(n)) }]
          end
        end

        def overall_findings(document)
          scenario.entries(document.measurements).group_by(&:first).map do |workload, pairs|
            "head-of-line #{workload}: #{Verdicts::HeadOfLine.best(pairs.map(&:last))}"
          end
        end

        def us(value) = value ? Support::Format.duration_us(value) : "-"

        def times(x) = x ? "x#{format("%.1f", x)}" : "-"
      end
    end
  end
end
