# frozen_string_literal: true

require_relative "../../stats/median"
require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../../verdicts/knee_rounds"
require_relative "../../verdicts/rate"
require_relative "../rate_chart"
require_relative "../side"

module Arena
  module Report
    module Sides
      # What the report says and draws of a rate sweep: its knee within the
      # SLO, over one round or several, and latency against offered rate.
      class Rate < Side
        side_of "rate"

        def finding(m)
          return nil unless m.summary?
          x = m.extra
          "#{m.server} #{m.workload} rate: #{Verdicts::Rate.knee_words(x)}, with p99 <= #{x["slo_ms"]} ms#{slo_origin(x)} " \
            "(closed maximum #{Support::Format.rps(x["closed_max_rps"])} req/s)"
        end

        def rounds_finding(ms)
          return finding(ms.first) if ms.size == 1
          x = ms.first.extra
          maxima = ms.map { |m| m.extra["closed_max_rps"].to_f }.sort
          "#{ms.first.server} #{ms.first.workload} rate over #{ms.size} rounds: #{Verdicts::KneeRounds.call(ms.map(&:extra))}, with p99 <= " \
            "#{x["slo_ms"]} ms#{slo_origin(x)} (closed maximum #{Support::Format.rps(maxima.first)}-#{Support::Format.rps(maxima.last)} req/s)"
        end

        def slo_origin(x) = x["slo_relative"] ? " (3 x unloaded p99, at least 100 ms)" : ""

        # "knee 9.97k req/s at p99 ≤ 100 ms (closed max 9.06k req/s)".
        def brief(m)
          return nil unless m.summary?
          x = m.extra
          s = Support::Short
          word = x["verdict"] || (x["knee_rps"] ? "knee" : "none")
          ["rate", "#{knee_brief(word, x["knee_rps"])} at p99 ≤ #{s.sig(x["slo_ms"].to_f)} ms (closed max #{s.rate(x["closed_max_rps"])} req/s)"]
        end

        # "knee 10.1k req/s at p99 ≤ 100 ms (median of 3 rounds: 9.97k-10.2k)";
        # "unsettled: knee in 2, none in 1 of 3 rounds at p99 ≤ 100 ms".
        def rounds_brief(ms)
          return brief(ms.first) if ms.size == 1
          s = Support::Short
          xs = ms.map(&:extra)
          words = xs.map { |x| x["verdict"] || (x["knee_rps"] ? "knee" : "none") }
          knees = xs.zip(words).filter_map { |x, w| x["knee_rps"]&.to_f if w == "knee" }
          slo = "at p99 ≤ #{s.sig(xs.first["slo_ms"].to_f)} ms"
          said = if words.uniq == ["knee"]
            "knee #{s.rate(Stats.median(knees))} req/s #{slo} (median of #{ms.size} rounds: #{s.rate(knees.min)}-#{s.rate(knees.max)})"
          elsif words.uniq.size == 1
            "#{knee_brief(words.first, nil)} #{slo} in all #{ms.size} rounds"
          else
            "unsettled #{slo}: #{words.tally.sort_by { |w, c| [-c, w] }.map { |w, c| "#{w} in #{c}" }.join(", ")} of #{ms.size} rounds"
          end
          ["rate", said]
        end

        # A verdict's word with its knee, or what it means in a few words.
        def knee_brief(word, knee)
          return "knee #{Support::Short.rate(knee)} req/s" if word == "knee" && knee
          {"none" => "none: no level held", "stopped" => "stopped: time ran out, every level held"}.fetch(word, word)
        end

        def sections(document, colors:) = [RateChart.new(document, colors: colors).section].compact
      end
    end
  end
end
