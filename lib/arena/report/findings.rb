# frozen_string_literal: true

require_relative "../scenarios/base"
require_relative "../servers/base"
require_relative "../verdicts/limits"
require_relative "aa"
require_relative "envelope_lines"
require_relative "rows"
require_relative "side"

module Arena
  module Report
    # One plain sentence per scenario outcome that a table row cannot carry,
    # worded by the scenario that made it (its `finding`), plus the marks a
    # sceptic needs: too many errors, a loader at its limit, a server that
    # did not settle, too few samples for p99.
    module Findings
      FLAG_WORDS = {
        "errors" => "errors over 1%: its throughput counts good responses only, and it is never picked",
        "loader-bound" => "the load engine's core was over 85% busy: the loader, not the server, may be the limit",
        "did-not-settle" => "the server was still busy from the measurement before when this one began",
        "few-samples" => "fewer than 100 good responses: no p99 is shown",
        "unanswered" => "no response and no error in the whole measurement: the server hung or never got the requests; it is never picked"
      }.freeze

      module_function

      def lines(document) = AA.lines(document) + scenario_lines(document) + overall_lines(document) + EnvelopeLines.call(document) + pool_lines(document) + fault_lines(document) + flag_lines(document) + stall_lines(document) + uneven_lines(document) + concurrency_lines(document) + batched_lines(document)

      def overall_lines(document) = Scenarios.all.flat_map { |s| Side.of(s).overall_findings(document) }

      # Each measurement's finding, except that those a scenario keys as
      # one answer over rounds are worded once, where the first stood.
      def scenario_lines(document) = scenario_groups(document).filter_map { |scenario, ms, rounds| sentence(scenario, ms, rounds) }

      # [scenario, measurements, rounds?] in the document's order: one
      # measurement each, or the rounds a scenario words as one answer.
      def scenario_groups(document)
        document.measurements.group_by do |m|
          key = Scenarios.registry[m.scenario]&.round_key(m)
          key ? [m.scenario, key] : m.object_id
        end.filter_map do |key, ms|
          scenario = Scenarios.registry[ms.first.scenario] or next
          [scenario, key.is_a?(Array) ? ms : ms.first(1), key.is_a?(Array)]
        end
      end

      # The whole sentence of a group (report.md, report.html, --verbose).
      def sentence(scenario, ms, rounds) = rounds ? Side.of(scenario).rounds_finding(ms) : Side.of(scenario).finding(ms.first)

      # One line per stalled row (server, workload, scenario), with the reason
      # of its first stalled run: the delay, the likely cause and the run that
      # tells it apart differ by row; rounds and repeats would say it again.
      def stall_lines(document) = flagged_row_lines(document, "stalled", &:stall)

      # One line per row that ran far fewer requests at once than its
      # settings declare (lib/arena/verdicts/concurrency.rb), with the first
      # such run's figures.
      # A server whose reason is known from its source says it too (Agoo).
      def concurrency_lines(document)
        why = ->(server) { Servers.registry[server.to_s.split(":", 2).first]&.concurrency_note&.then { |n| " (why: #{n})" } }
        flagged_row_lines(document, "under-concurrent", tail: why, &:concurrency)
      end

      # One line per row whose kept-alive connections fell over its workers
      # so that fewer slots could be busy than the load could fill
      # (lib/arena/verdicts/concurrency.rb): the spread, the slots reached and
      # the rate they allow, which is what the row's throughput is read against.
      def uneven_lines(document) = flagged_row_lines(document, "uneven", &:uneven)

      # One line per row whose answers were held in batches
      # (lib/arena/verdicts/batching.rb): its count is coarse, Little's rate is not.
      def batched_lines(document) = flagged_row_lines(document, "batched", &:batched)

      # Rows (server, workload, scenario) with a summary flag `said` reads:
      # the word, how many of the row's runs had it, and the first one's reason.
      # tail: server label -> words added to its line (nil: none).
      def flagged_row_lines(document, word, tail: ->(_) {}, &said)
        groups = document.measured.group_by { |m| [m.server, m.workload, m.label] }
        groups.filter_map do |(server, workload, label), runs|
          flagged = runs.select { |m| m.summary && said.call(m.summary) }
          next if flagged.empty?
          count = (runs.size > 1) ? " (#{flagged.size} of #{runs.size} runs)" : ""
          "#{server} #{workload} #{label}: #{word}#{count}: #{said.call(flagged.first.summary)}#{tail.call(server)}"
        end
      end

      # Rails' pool ran dry: each measurement with its reason.
      def pool_lines(document)
        document.measured.select { |m| m.summary&.pool }.map { |m| "#{m.server} #{m.workload} #{m.label}: pool exhausted: #{m.summary.pool}" }
      end

      # A known server fault explained the errors (lib/arena/verdicts/truncated_response.rb): each measurement, named.
      def fault_lines(document)
        document.measured.select { |m| m.summary&.fault }.map { |m| fault_line(m) }
      end

      def fault_line(m) = "#{m.server} #{m.workload} #{m.label}: server fault: #{m.summary.fault}"

      def flag_lines(document)
        # A round under 100 responses still has a p99 in its row when the
        # rounds' merged histograms hold 100 (Rows): then nothing to say.
        shown = Rows.from(document).select { |r| r.samples.to_i >= Verdicts::Limits::PERCENTILE_MIN_SAMPLES.fetch(:p99) }.map { |r| [r.server, r.workload, r.label] }
        document.measured.flat_map { |m| m.flags.map { |f| [f, m] } }.group_by(&:first).filter_map do |flag, pairs|
          pairs = pairs.reject { |_, m| shown.include?([m.server, m.workload, m.label]) } if flag == "few-samples"
          next if pairs.empty?
          words = FLAG_WORDS[flag] or next
          who = pairs.map { |_, m| "#{m.server} #{m.workload} #{m.label}" }.uniq
          "#{who.first(4).join("; ")}#{" and #{who.size - 4} more" if who.size > 4}: #{words}"
        end
      end
    end
  end
end
