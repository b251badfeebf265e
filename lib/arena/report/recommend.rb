# frozen_string_literal: true

module Arena
  module Report
    # The 2013 comparison ended with a table of use cases; this one is derived
    # from the run's own numbers, and every line cites the figures behind it.
    # Where the run did not measure what a use case needs, it says what to run.
    class Recommend
      Recommendation = Struct.new(:use_case, :pick, :because, :run, keyword_init: true)

      STEADY = %w[steady reps].freeze

      def initialize(document)
        @document = document
        @measurements = document.fetch("measurements", [])
        @rows = Rows.from(document)
      end

      def call
        [api, io, cpu, memory, resilience, slow_clients]
      end

      private

      def steady(workloads) = @rows.select { |r| STEADY.include?(r.scenario) && workloads.include?(r.workload) }

      def missing(use_case, run) = Recommendation.new(use_case: use_case, pick: nil, because: "not measured in this run", run: run)

      def api = fastest("fast request/response API", %w[server json ip], "arena run --workload server")

      def io = fastest("waiting on I/O or long requests", %w[sleep stream], "arena run --workload sleep --scenario steady,rate")

      def cpu = fastest("CPU-bound work", %w[pi primes], "arena run --workload pi")

      # The highest median throughput on the first workload of the list the run
      # measured, set against the runner-up; overlapping spreads are a tie.
      def fastest(use_case, workloads, run)
        workload = workloads.find { |w| steady([w]).any? }
        unless workload
          other = @rows.find { |r| workloads.include?(r.workload) }
          return missing(use_case, other ? "arena run --workload #{other.workload} --scenario steady" : run)
        end
        rows = steady([workload]).group_by(&:server).map { |_, rs| rs.max_by(&:rps) }.sort_by { |r| -r.rps }
        best, second = rows
        because = "#{figures(best)} on #{workload}"
        if second
          ratio = second.rps.positive? ? best.rps / second.rps : Float::INFINITY
          because += "; next #{second.server} #{figures(second)} (#{format("%.2f", ratio)}x)"
          because += ". The two overlap within run-to-run spread: a tie, confirm with --repeat 5" if overlap?(best, second)
        else
          because += "; the only server measured"
        end
        Recommendation.new(use_case: use_case, pick: best.server, because: because,
          run: (best.runs < 2) ? "--repeat 3 to measure the spread" : nil)
      end

      def figures(row)
        spread = (row.runs > 1) ? " (#{Format.rps(row.rps_min)}–#{Format.rps(row.rps_max)} over #{row.runs} runs)" : ""
        errors = row.errors.positive? ? ", #{row.errors} errors" : ""
        cpu = row.cpu_pct.positive? ? ", CPU #{row.cpu_pct.round}%" : ""
        "#{Format.rps(row.rps)} req/s#{spread}, p99 #{Format.duration_us(row.p99_us)}#{cpu}#{errors}"
      end

      def overlap?(a, b) = a.runs > 1 && b.runs > 1 && a.rps_min <= b.rps_max

      def memory
        # A restart briefly runs two generations side by side: not the memory a
        # server needs to serve.
        rows = @rows.select { |r| STEADY.include?(r.scenario) && r.pss_peak_kb.positive? }
        rows = @rows.select { |r| !%w[crash restart].include?(r.scenario) && r.pss_peak_kb.positive? } if rows.empty?
        return missing("limited memory or many small apps", "arena run (the probes sample PSS in every scenario)") if rows.empty?
        peaks = rows.group_by(&:server).map { |server, rs| [server, rs.max_by(&:pss_peak_kb)] }.sort_by { |_, r| r.pss_peak_kb }
        (server, best), (other, next_best) = peaks
        because = "PSS peak #{Format.memory_kb(best.pss_peak_kb)} (RSS #{Format.memory_kb(best.rss_peak_kb)}) on #{best.workload}#{workers(server)}"
        because += "; next #{other} #{Format.memory_kb(next_best.pss_peak_kb)}#{workers(other)}" if other
        Recommendation.new(use_case: "limited memory or many small apps", pick: server, because: because)
      end

      def workers(label)
        n = @document.fetch("servers", []).find { |s| s["label"] == label }&.dig("workers")
        n ? " with #{n} worker#{"s" unless n == 1}" : ""
      end

      def resilience
        use_case = "surviving crashes and deploys"
        crashes = @measurements.select { |m| m["scenario"] == "crash" && m["extra"].is_a?(Hash) }
        restarts = @measurements.select { |m| m["scenario"] == "restart" && m["extra"].is_a?(Hash) && m["load"] }
        return missing(use_case, "arena run --scenario crash,restart") if crashes.empty? && restarts.empty?
        servers = (crashes + restarts).map { |m| m["server"] }.uniq
        scored = servers.map { |s| [s, crashes.find { |m| m["server"] == s }, restarts.select { |m| m["server"] == s }] }
        ranked = scored.sort_by { |_, c, r| resilience_score(c, r) }
        because = ranked.first(2).map.with_index do |(server, crash, mine), i|
          parts = []
          parts << crash_text(crash) if crash
          best = best_restart(mine)
          parts << restart_text(best) if best
          parts << "no zero-downtime restart" if best.nil? && restarts.any?
          i.zero? ? parts.join("; ") : "next #{server}: #{parts.join("; ")}"
        end
        lacking = [("crash" if crashes.empty?), ("restart" if restarts.empty?)].compact
        Recommendation.new(use_case: use_case, pick: ranked.first.first, because: because.join(". "),
          run: lacking.any? ? "arena run --scenario #{lacking.join(",")}" : nil)
      end

      # A server that lost its worker for good, or stopped serving after a
      # restart, or has no restart, ranks last; then fewer failed requests;
      # then the shorter longest wait during the best restart.
      def resilience_score(crash, restarts)
        best = best_restart(restarts)
        broken = ((crash && crash.dig("extra", "outcome") != "replaced") ? 1 : 0) + (best&.dig("extra", "serving_after") ? 0 : 1)
        failed = crash.to_h.dig("extra", "errors_after_event").to_i + best.to_h.dig("extra", "failed_requests").to_i
        [broken, failed, best.to_h.dig("extra", "longest_us").to_i]
      end

      def best_restart(restarts)
        restarts.min_by { |m| [m.dig("extra", "serving_after") ? 0 : 1, m.dig("extra", "failed_requests").to_i, m.dig("extra", "longest_us").to_i] }
      end

      def crash_text(m)
        x = m["extra"]
        back = x["recovered"] ? "back to 90% throughput in #{x["recovery_s"]}s" : "throughput not back to 90%"
        "worker killed: #{x["outcome"]}, #{x["errors_after_event"].to_i} errors after, #{back}"
      end

      def restart_text(m)
        x = m["extra"]
        "#{m["variant"]} restart: #{x["failed_requests"].to_i} failed requests, longest #{Format.duration_us(x["longest_us"])}, " \
          "dip #{x["dip_pct"] || 0}%#{" (NOT serving after)" unless x["serving_after"]}"
      end

      def slow_clients
        use_case = "slow clients without a proxy"
        runs = @measurements.select { |m| m["scenario"] == "slow-clients" && m.dig("extra", "rps_ratio") }
        return missing(use_case, "arena run --scenario slow-clients") if runs.empty?
        ranked = runs.sort_by { |m| -m.dig("extra", "rps_ratio").to_f }
        best, worst = ranked.first, ranked.last
        because = "kept #{share(best)} of its throughput beside #{best["variant"].sub(/^with /, "")} clients " \
          "(#{Format.rps(best.dig("extra", "rps_alone").to_f)} → #{Format.rps(best.dig("load", "throughput_rps").to_f)} req/s)"
        because += "; #{worst["server"]} kept #{share(worst)}" unless worst.equal?(best)
        Recommendation.new(use_case: use_case, pick: best["server"], because: because,
          run: "arena run --scenario slow-clients --front nginx")
      end

      def share(m) = "#{(100 * m.dig("extra", "rps_ratio").to_f).round}%"
    end
  end
end
