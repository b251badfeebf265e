# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../memory_timeline"
require_relative "../side"

module Arena
  module Report
    module Sides
      # What the report says and draws of a soak: memory's slope and verdict,
      # over one round or several, latency drift, memory over time.
      class Soak < Side
        side_of "soak"

        def finding(m)
          return nil unless scenario.judged?(m)
          x = m.extra
          f = Support::Format
          drift = x["latency_drift"] ? ", p99 #{f.duration_us(x["latency_drift"]["first_p99_us"])} in the first " \
            "#{x["slice_s"]} s, #{f.duration_us(x["latency_drift"]["last_p99_us"])} in the last" : ""
          "#{m.server} #{m.workload} soak (#{x["soak_s"]} s at #{f.rps(x["target_rps"])} req/s): PSS " \
            "#{mib(x["pss_first_kb"])} -> #{mib(x["pss_last_kb"])}, #{format("%+.2f", x["slope_mib_per_min"])} MiB/min " \
            "(R² #{format("%.2f", x["r2"])}); last third #{format("%+.2f", x["last_third_mib_per_min"])} MiB/min, private " \
            "memory (USS) #{format("%+.1f", x["last_third_growth_pct"].to_f)}%: #{x["verdict"]}#{reason(x)}#{short(x)}#{procs(x)}#{drift}"
        end

        def rounds_finding(ms)
          return finding(ms.first) if ms.size == 1
          xs = ms.map(&:extra)
          words = xs.map { |x| x["verdict"] }
          word = (words.uniq.size == 1) ? words.first : "unsettled"
          counts = words.tally.map { |w, n| "#{w} in #{n}" }.join(", ")
          slopes = xs.map { |x| x["slope_mib_per_min"].to_f }.minmax.map { |v| format("%+.2f", v) }
          "#{ms.first.server} #{ms.first.workload} soak over #{ms.size} rounds: #{word} (#{counts} of #{ms.size}), PSS " \
            "#{slopes.uniq.join(" to ")} MiB/min#{short(xs.last)}"
        end

        # "growing: PSS +41.2 MiB/min over a 10 s soak; may be warm-up".
        def brief(m)
          return nil unless scenario.judged?(m)
          x = m.extra
          s = Support::Short
          ["soak", "#{x["verdict"]}: PSS #{signed(x["slope_mib_per_min"])} MiB/min over a #{s.sig(x["soak_s"].to_f)} s soak" \
            "#{"; may be warm-up" unless short(x).empty?}"]
        end

        # "growing in 3 of 3 rounds: PSS +1.2 to +1.5 MiB/min".
        def rounds_brief(ms)
          return brief(ms.first) if ms.size == 1
          xs = ms.map(&:extra)
          words = xs.map { |x| x["verdict"] }
          said = (words.uniq.size == 1) ? "#{words.first} in #{ms.size} of #{ms.size} rounds" :
            "unsettled: #{words.tally.map { |w, n| "#{w} in #{n}" }.join(", ")} of #{ms.size} rounds"
          slopes = xs.map { |x| x["slope_mib_per_min"].to_f }.minmax.map { |v| signed(v) }.uniq
          ["soak", "#{said}: PSS #{slopes.join(" to ")} MiB/min#{"; may be warm-up" unless short(xs.last).empty?}"]
        end

        def signed(value) = "#{"+" unless value.to_f.negative?}#{Support::Short.sig(value.to_f)}"

        # A fresh Ruby process's heap grows for its first minutes under load
        # (Puma on /server here: USS +26 MiB/min in a soak's first 3 s, still
        # +1.7 MiB/min 40-60 s in), so growth in a short soak may be warm-up.
        WARM_S = 120

        def short(x)
          return "" unless x["verdict"] == "growing" && x["soak_s"].to_f < WARM_S
          " (a #{x["soak_s"]} s soak: a fresh heap also grows this early; #{WARM_S} s or more, 300 by default, tells a leak from warm-up)"
        end

        def mib(kb) = "#{(kb.to_f / 1024).round(1)} MiB"

        # Older results files have no reason (nor a stated floor).
        def reason(x) = x["verdict_reason"] ? ": #{x["verdict_reason"]}" : ""

        # Processes lost on the way (a crashed worker not replaced) are part of the story.
        def procs(x)
          return "" unless x["procs_min"] && x["procs_start"] && x["procs_min"] < x["procs_start"]
          " (#{x["procs_start"]} processes at the start, #{x["procs_min"]} at the fewest)"
        end

        def sections(document, colors:) = MemoryTimeline.new(document, colors: colors).sections
      end
    end
  end
end
