# frozen_string_literal: true

require_relative "../scenarios/base"
require_relative "../support/format"
require_relative "../verdicts/event_analysis"
require_relative "../verdicts/pick"
require_relative "aa"
require_relative "advice"
require_relative "labels"
require_relative "rows"
require_relative "side"

module Arena
  module Report
    # The 2013 comparison ended with a table of use cases; this one is derived
    # from the run's own numbers, and every line cites the figures behind it,
    # the runner-up and the verdict of the significance test (Pick).
    # A measurement with errors over 1% is never picked. Where the run did not
    # measure what a use case needs, it says what to run.
    class Recommend
      Recommendation = Struct.new(:use_case, :pick, :because, :run, keyword_init: true)

      # Memory is weighed only among servers that serve: within this share of
      # the best goodput on the same workload.
      SERVING_SHARE = 0.5

      def initialize(document)
        @document = document
        # An A/A twin (--aa) is the same config again: never a candidate.
        @rows = Rows.from(document).reject { |r| AA.twin?(r.server) }
        @basis = Scenarios.throughput_basis
        @advice = Advice.new(document.plan)
        @labels = Labels.new(document)
      end

      def call
        [api, io, cpu, memory, resilience, slow_clients]
      end

      private

      def steady(workloads) = @rows.select { |r| @basis.include?(r.scenario) && workloads.include?(r.workload) && !r.erroneous? }

      def missing(use_case, run, because: "not measured in this run") = Recommendation.new(use_case: use_case, because: because, run: run)

      # On a user's app its own paths answer this use case: the built-in
      # workload names mean nothing there.
      def api = fastest("fast request/response API", %w[server json ip] + app_workloads, builtin_run("--workload", "server"))

      def io = fastest("waiting on I/O or long requests", %w[sleep stream], builtin_run("--workload", "sleep", "--scenario", "steady,rate"))

      def cpu = fastest("CPU-bound work", %w[pi trial primes], builtin_run("--workload", "pi"))

      def app_workloads = @advice.app? ? @rows.map(&:workload) : []

      # A suggestion on the built-in app's workloads; none on a user's app,
      # where they would not run (the use case then says what it needs).
      def builtin_run(*args) = (@advice.run(*args) unless @advice.app?)

      # Each server's best row on the first workload of the list the run measured.
      def best_per_server(workload) = steady([workload]).group_by(&:server).map { |_, rs| rs.max_by(&:rps) }.sort_by { |r| -r.rps }

      # The pick by Pick's rule (paired over the rounds both ran in; memory,
      # then p99, where goodput is equivalent; flags), each side's figures cited.
      def fastest(use_case, workloads, run)
        workload = workloads.find { |w| steady([w]).any? }
        unless workload
          other = @rows.find { |r| workloads.include?(r.workload) }
          return missing(use_case, @advice.run("--workload", other.workload, "--scenario", "steady")) if other
          return missing(use_case, run) if run
          # Only a user's app without a row of its own reaches here: the list is the built-in names.
          return missing(use_case, nil, because: "not measured: judged on the built-in app's #{workloads.join(", ")}; " \
            "name a path of your app that does this with --workload")
        end
        rows = best_per_server(workload)
        result = Verdicts::Pick.call(rows.map do |r|
          Verdicts::Pick::Candidate.new(name: name(r.server), rps: r.rps_runs, p99: r.p99_runs, pss: r.pss_runs, rounds: r.round_runs, flags: r.flags)
        end)
        by_name = rows.to_h { |r| [name(r.server), r] }
        pick = result.pick && by_name[result.pick.name]
        second = result.runner_up && by_name[result.runner_up.name]
        shown = pick || rows.first
        because = "#{figures(shown)} on #{workload}"
        because = "#{name(shown.server)} #{because}" unless pick
        because += "; runner-up #{name(second.server)} #{figures(second)}" if second
        because += "; #{result.verdict}"
        Recommendation.new(use_case: use_case, pick: pick && name(pick.server), because: because,
          run: (@advice.run("--rounds", "3") if rows.first(2).any? { |r| r.runs < 3 } && rows.size > 1))
      end

      def figures(row)
        spread = (" (#{Support::Format.rps(row.rps_min)}–#{Support::Format.rps(row.rps_max)} over #{row.runs} runs)" if row.runs > 1)
        errors = (", #{Support::Format.error_pct(row.error_pct)} errors" if row.errors.positive?)
        cpu = (", CPU #{row.cpu_pct.round}%" if row.cpu_pct.positive?)
        "#{Support::Format.rps(row.rps)} good req/s#{spread}, p99 #{Format.percentile_us(row.p99_us, row.samples, :p99)}#{cpu}#{errors}#{stalled(row)}#{pool(row)}"
      end

      # A stalled row may be picked, but never without the word.
      def stalled(row) = (", stalled (its latency is a fixed delay: see Findings)" if row.stalled?)

      # Rails' connection pool ran dry: its errors are the config's threads
      # against the app's pool, not the server (lib/arena/verdicts/pool_exhaustion.rb).
      def pool(row) = (", Rails' connection pool exhausted (more threads than connections: see Findings)" if row.pool_exhausted?)

      # The smallest PSS among the servers that serve: within half of the best
      # goodput on the same workload. A server that is small because it
      # serves little is not a pick for memory.
      def memory
        use_case = "limited memory or many small apps"
        # Worker-cost data, when measured: the marginal cost of a worker at a throughput floor beats the smallest peak.
        pick, because = Side.of(Scenarios::WorkerCost).memory_pick(@document, share: SERVING_SHARE)
        return Recommendation.new(use_case: use_case, pick: pick, because: because) if pick
        rows = @rows.select { |r| @basis.include?(r.scenario) && r.pss_peak_kb.positive? && !r.erroneous? }
        return missing(use_case, @advice.run, because: "not measured in this run (the probes sample PSS in every scenario)") if rows.empty?
        workload = rows.group_by(&:workload).max_by { |_, rs| rs.map(&:server).uniq.size }.first
        per_server = rows.select { |r| r.workload == workload }.group_by(&:server).map { |_, rs| rs.max_by(&:rps) }
        floor = per_server.map(&:rps).max * SERVING_SHARE
        serving = per_server.select { |r| r.rps >= floor }.sort_by(&:pss_peak_kb)
        best, second = serving
        because = "PSS peak #{Support::Format.memory_kb(best.pss_peak_kb)} (RSS #{Support::Format.memory_kb(best.rss_peak_kb)}) at " \
          "#{Support::Format.rps(best.rps)} good req/s#{stalled(best)} on #{workload}#{workers(best.server)}, among the servers within " \
          "#{(100 * (1 - SERVING_SHARE)).round}% of the best goodput (#{Support::Format.rps(floor / SERVING_SHARE)} req/s)"
        # An exact tie is said as one, never broken by the order the rows came in.
        if second && second.pss_peak_kb == best.pss_peak_kb
          return Recommendation.new(use_case: use_case, pick: nil, because: "a tie: #{best.server} and #{second.server} both " \
            "peaked at PSS #{Support::Format.memory_kb(best.pss_peak_kb)} on #{workload}, at #{Support::Format.rps(best.rps)} and " \
            "#{Support::Format.rps(second.rps)} good req/s")
        end
        if second
          because += "; runner-up #{name(second.server)} #{Support::Format.memory_kb(second.pss_peak_kb)}#{workers(second.server)} at " \
            "#{Support::Format.rps(second.rps)} req/s: #{format("%.2f", second.pss_peak_kb.fdiv(best.pss_peak_kb))}x the memory"
        end
        left_out = per_server.size - serving.size
        because += "; #{left_out} smaller-serving server(s) left out" if left_out.positive?
        Recommendation.new(use_case: use_case, pick: name(best.server), because: because)
      end

      # A server by the settings that differ from its defaults (Labels).
      def name(label) = @labels.call(label)

      def workers(label)
        n = @document.server(label)&.workers
        (" with #{n} worker#{"s" unless n == 1}" if n)
      end

      def resilience
        use_case = "surviving crashes and deploys"
        crashes = Scenarios::Crash.measured_in(@document)
        restarts = Scenarios::Restart.measured_in(@document)
        return missing(use_case, @advice.run("--scenario", "crash,restart")) if crashes.empty? && restarts.empty?
        servers = (crashes + restarts).map(&:server).uniq
        scored = servers.map { |s| [s, crashes.find { |m| m.server == s }, restarts.select { |m| m.server == s }] }
        ranked = scored.sort_by { |_, c, r| resilience_score(c, r) }
        because = ranked.first(2).map.with_index do |(server, crash, mine), i|
          parts = []
          parts << crash_text(crash) if crash
          best = best_restart(mine)
          parts << restart_text(best) if best
          parts << "no zero-downtime restart" if best.nil? && restarts.any?
          i.zero? ? parts.join("; ") : "runner-up #{name(server)}: #{parts.join("; ")}"
        end
        # (Both lacking returned above: at most one is.)
        lacking = crashes.empty? ? Scenarios::Crash.key : (Scenarios::Restart.key if restarts.empty?)
        Recommendation.new(use_case: use_case, pick: name(ranked.first.first), because: because.join(". "),
          run: lacking && @advice.run("--scenario", lacking))
      end

      # A server that lost its worker for good, did not get back to 90% of its
      # throughput, stopped serving after a restart, or has no restart, ranks
      # last; then fewer failed requests; then the faster recovery; then the
      # shorter longest wait during the best restart.
      def resilience_score(crash, restarts)
        best = best_restart(restarts)&.then { |m| restart_figures(m) }
        cx = crash && Scenarios::Crash.figures_of(crash)
        broken = [cx && cx.outcome != "replaced", cx && !cx.recovered, !best&.serving_after].count(true)
        failed = cx&.errors_after_event.to_i + best&.failed_requests.to_i
        [broken, failed, cx&.recovery_s.to_f, best&.longest_us.to_i]
      end

      def restart_figures(m) = Scenarios::Restart.figures_of(m)

      def best_restart(restarts)
        restarts.min_by { |m| restart_figures(m).then { |x| [x.serving_after ? 0 : 1, x.failed_requests.to_i, x.longest_us.to_i] } }
      end

      def crash_text(m)
        x = Scenarios::Crash.figures_of(m)
        back = Verdicts::EventAnalysis.words(x)
        "worker killed: #{x.outcome}, #{x.errors_after_event.to_i} errors after, #{back}"
      end

      def restart_text(m)
        x = restart_figures(m)
        "#{m.variant} restart: #{x.failed_requests.to_i} failed requests, longest #{Support::Format.duration_us(x.longest_us)}, " \
          "dip #{x.dip_pct || 0}%#{" (NOT serving after)" unless x.serving_after}"
      end

      def slow_clients
        use_case = "slow clients without a proxy"
        runs = Scenarios::SlowClientsScenario.measured_in(@document).select { |m| slow(m).rps_ratio }
        return missing(use_case, @advice.run("--scenario", "slow-clients")) if runs.empty?
        # One line per server (its best variant): the runner-up is another server.
        ranked = runs.group_by(&:server).map { |_, ms| ms.max_by { |m| slow(m).rps_ratio } }.sort_by { |m| -slow(m).rps_ratio }
        best, second = ranked
        because = "kept #{share(best)} of its goodput beside #{best.variant.sub(/^with /, "")} clients " \
          "(#{Support::Format.rps(slow(best).rps_alone.to_f)} → #{Support::Format.rps(best.good_rps)} req/s)"
        because += "; runner-up #{name(second.server)} kept #{share(second)}" if second
        Recommendation.new(use_case: use_case, pick: name(best.server), because: because,
          run: @advice.run("--scenario", "slow-clients", "--front", "nginx"))
      end

      def slow(m) = Scenarios::SlowClientsScenario.figures_of(m)

      def share(m) = "#{(100 * slow(m).rps_ratio).round}%"
    end
  end
end
