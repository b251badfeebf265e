# frozen_string_literal: true

module Arena
  module Report
    # One plain sentence per scenario outcome that a table row cannot carry:
    # a knee, a break point, a crash's recovery, a restart's cost, slow
    # clients' toll, an unsupported mechanism.
    module Findings
      module_function

      def lines(document)
        document.fetch("measurements", []).filter_map { |m| line(m) }
      end

      def line(m)
        who = "#{m["server"]} #{m["workload"]}"
        x = m["extra"] || {}
        case [m["scenario"], m["kind"]]
        in ["rate", "summary"]
          knee = m["knee_rps"] ? "#{Format.rps(m["knee_rps"])} req/s" : "none (p99 over the SLO at every rate)"
          "#{who} rate: knee at #{knee} with p99 <= #{m["slo_ms"]} ms (closed maximum #{Format.rps(m["closed_max_rps"])} req/s)"
        in ["breakpoint", "summary"]
          clean = m["last_clean_connections"] ? "last clean at #{m["last_clean_connections"]} connections (#{Format.rps(m["last_clean_rps"])} req/s)" : "no clean level"
          broke = m["broke_at_connections"] ? "; broke at #{m["broke_at_connections"]}: #{m["broke_because"]}" : "; did not break within the bounds"
          "#{who} breakpoint: #{clean}#{broke}"
        in ["restart", "summary"]
          "#{who} restart: unsupported (#{m["unsupported"]})"
        in ["crash", nil]
          recovery = x["recovered"] ? "back to 90% in #{x["recovery_s"]}s" : "throughput not back to 90%"
          "#{who} crash: worker #{x["victim"]} killed at #{x["event_at_s"]}s, #{x["outcome"]}, #{x["errors_after_event"]} errors, " \
            "#{recovery}, longest #{Format.duration_us(x["longest_us"])}"
        in ["restart", nil]
          "#{who} restart #{m["variant"]}: #{x["failed_requests"]} failed requests, longest #{Format.duration_us(x["longest_us"])}, " \
            "dip #{x["dip_pct"]}%#{", NOT serving after" unless x["serving_after"]}"
        in ["slow-clients", nil] if x["count"]
          "#{who} slow-clients: with #{x["count"]} slow #{x["mode"]} clients throughput is #{(100 * x["rps_ratio"].to_f).round}% of alone"
        else
          nil
        end
      end
    end
  end
end
