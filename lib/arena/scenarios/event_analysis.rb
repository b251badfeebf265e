# frozen_string_literal: true

module Arena
  module Scenarios
    # Reads an engine timeline around one event (a kill, a restart) at second
    # `at` of the counted phase: good throughput before, the dip after, how
    # long until it is back to `recovered` of before, and the errors after.
    # Slices may be finer than a second (crash and restart ask for 100 ms), so
    # rates are per second whatever the slice. Recovery must hold for
    # HOLD_S (or one slice, when slices are longer): a slice that merely
    # straddles the event, with answers from before it, is not a recovery.
    module EventAnalysis
      TIMELINE_MS = 100
      HOLD_S = 0.5

      module_function

      def call(load, at:, recovered: 0.9)
        step = load.interval_s
        rate = ->(p) { p.good / step }
        before = load.timeline.select { |p| p.t + step <= at }
        after = load.timeline.select { |p| p.t + step > at }
        baseline = before.empty? ? nil : before.sum(&rate) / before.size
        hold = [(HOLD_S / step).round, 1].max
        back = baseline && after.each_index.lazy.select { |i| after[i].t > at }.map { |i| after[i, hold] }
          .find { |run| run.size == hold && run.all? { |p| rate.call(p) >= recovered * baseline } }&.first
        dip = after.map(&rate).min
        {
          "event_at_s" => at.round(2),
          "resolution_s" => step,
          "baseline_rps" => baseline&.round(1),
          "dip_rps" => dip&.round(1),
          "dip_pct" => (dip && baseline&.positive?) ? (100.0 * (1 - dip / baseline)).round(1) : nil,
          "recovery_s" => back && (back.t + step - at).round(2),
          "recovered" => !back.nil?,
          "errors_after_event" => after.sum(&:errors)
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
