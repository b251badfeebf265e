# frozen_string_literal: true

module Arena
  module Scenarios
    # Reads an engine timeline around one event (a kill, a restart) at second
    # `at` of the counted phase: throughput before, the dip after, how long
    # until throughput is back to `recovered` of before, and the errors after.
    module EventAnalysis
      module_function

      def call(timeline, at:, recovered: 0.9)
        before = timeline.select { |s| s["t"] < at.floor }
        after = timeline.select { |s| s["t"] >= at.floor }
        baseline = before.empty? ? nil : before.sum { |s| s["completed"] } / before.size.to_f
        back = baseline && after.find { |s| s["t"] > at && s["completed"] >= recovered * baseline }
        dip = after.map { |s| s["completed"] }.min
        {
          "event_at_s" => at.round(2),
          "baseline_rps" => baseline&.round(1),
          "dip_rps" => dip,
          "dip_pct" => (dip && baseline&.positive?) ? (100.0 * (1 - dip / baseline)).round(1) : nil,
          "recovery_s" => back && (back["t"] + 1 - at).round(2),
          "recovered" => !back.nil?,
          "errors_after_event" => after.sum { |s| s["errors"].to_i }
        }
      end
    end

    # Runs a block at a moment of the engine's counted phase (after its warm-up),
    # on a thread, so a scenario can act on the server while load runs.
    module At
      module_function

      def schedule(delay)
        Thread.new do
          sleep delay
          yield
        rescue => e
          {"error" => "#{e.class}: #{e.message}"}
        end
      end
    end
  end
end
