# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../side"
require_relative "../worker_cost_chart"

module Arena
  module Report
    module Sides
      # What the report says and draws of worker cost: PSS as base plus n
      # times a worker's cost, sharing at the load's start and end, and the
      # memory recommendation's reason.
      class WorkerCost < Side
        side_of "worker-cost"

        def finding(m)
          return "#{m.server} #{m.workload} worker-cost: not measured, #{m.extra["reason"]}" if m.summary? && m.extra["reason"]
          return nil unless m.summary? && m.extra["per_worker_kb"]
          x = m.extra
          failed = x["points"].select { |p| p["error"] }.map { |p| "; #{p["workers"]} workers did not start (#{p["error"]})" }.join
          sharing = x["points"].reject { |p| p["refork"] || p["error"] }.map { |p| "#{p["workers"]}: #{pct(p["sharing_start"])}→#{pct(p["sharing_end"])}" }.join(", ")
          refork = x["points"].find { |p| p["refork"] }
          refork_text = if refork
            "; with reforking (refork_after #{refork["refork_after"]}, #{refork["reforked"] ? "reforked" : "no refork seen"}): " \
                      "sharing #{pct(refork["sharing_start"])}→#{pct(refork["sharing_end"])}, PSS #{mib(refork["pss_kb"])}"
          else
            ""
          end
          "#{m.server} #{m.workload} worker-cost: PSS ≈ #{mib(x["base_kb"])} + n × #{mib(x["per_worker_kb"])} " \
            "(R² #{format("%.2f", x["r2"].to_f)}, n = #{x["points"].reject { |p| p["refork"] || p["error"] }.map { |p| p["workers"] }.join("/")}); " \
            "one worker's RSS #{mib(x["worker_rss_kb"])}; sharing per worker at start→end of load #{sharing}#{refork_text}#{failed}"
        end

        # "PSS ≈ 40.3 MiB + n × 22.9 MiB (R² 1.00)".
        def brief(m)
          return ["worker-cost", scenario.not_measured(m.extra["reason"])] if m.summary? && m.extra["reason"]
          return nil unless m.summary? && m.extra["per_worker_kb"]
          x = m.extra
          s = Support::Short
          failed = x["points"].select { |p| p["error"] }.map { |p| p["workers"] }
          ["worker-cost", "PSS ≈ #{s.memory_kb(x["base_kb"])} + n × #{s.memory_kb(x["per_worker_kb"])} (R² #{format("%.2f", x["r2"].to_f)})" \
            "#{"; #{failed.join(", ")} did not start" if failed.any?}"]
        end

        def self.mib(kb) = kb ? "#{(kb.to_f / 1024).round(1)} MiB" : "-"

        def pct(share) = WorkerCostChart.pct(share)

        def mib(kb) = WorkerCost.mib(kb)

        def sections(document, colors:) = [WorkerCostChart.new(document, colors: colors).section].compact

        # The memory recommendation's pick and its reason, or nil.
        def memory_pick(document, share:)
          found = scenario.memory_at_floor(document, share: share)
          best, second = found && found[:ranked]
          return nil unless best
          because = "#{mib(best[:pss_kb])} PSS under load at #{best[:workers]} worker#{"s" unless best[:workers] == 1} " \
            "(#{Support::Format.rps(best[:good_rps].to_f)} good req/s on #{found[:workload]}; #{mib(best[:base_kb])} + " \
            "#{mib(best[:per_worker_kb])} per worker), the fewest workers reaching #{Support::Format.rps(found[:floor])} req/s " \
            "(#{(100 * share).round}% of the best worker-cost goodput)"
          if second
            because += "; runner-up #{second[:server]} #{mib(second[:pss_kb])} at #{second[:workers]} worker(s), " \
              "#{mib(second[:per_worker_kb])} per worker"
          end
          [best[:server], because]
        end
      end
    end
  end
end
