# frozen_string_literal: true

require_relative "../verdicts/event_analysis"
require_relative "at"
require_relative "base"

module Arena
  module Scenarios
    # Steady load; a third of the way in, SIGKILL one worker (or the only
    # process). A server that dies, or does not replace the worker, is a
    # finding, not a failure of Arena. The timeline is sliced at 100 ms so a
    # recovery is measured, not rounded to the second.
    class Crash < Base
      scenario "crash", "SIGKILL a worker a third into steady load; errors, recovery, respawn"
      figures :victim, :procs_before, :procs_after, :procs_min_sampled, :outcome, :longest_us, *Verdicts::EventAnalysis::FIGURES

      def disruptive? = true

      def planned(_load, _adapter) = 1

      # 6 s of load at least, and a fresh server after it (disruptive).
      def self.seconds(guess) = guess.measurement_s([guess.load.duration, 6].max) + guess.boot_s

      def call(ctx)
        settings = ctx.settings(duration: [ctx.load.duration, 6].max, timeline_ms: Verdicts::EventAnalysis::TIMELINE_MS)
        at = settings.duration / 3.0
        record = measure(ctx, settings, variant: "kill-worker") do
          At.schedule((settings.warmup || 0) + at) do
            before = ctx.server.pids.size
            {"victim" => ctx.server.kill_worker, "procs_before" => before}
          end
        end
        [finish(ctx, record, at)]
      end

      private

      def finish(ctx, record, at)
        kill = record.extra
        after = ctx.server.pids
        replaced = after.size >= kill["procs_before"].to_i && !after.include?(kill["victim"])
        outcome = if after.empty? then "died"
        elsif replaced then "replaced"
        else "not replaced"
        end
        record.with(extra: kill.merge(Verdicts::EventAnalysis.call(record.load, at: at)).merge(
          "procs_after" => after.size, "procs_min_sampled" => record.probes.samples.map(&:procs).compact.min,
          "outcome" => outcome, "longest_us" => record.load.latency_all.max
        ))
      end
    end
  end
end
