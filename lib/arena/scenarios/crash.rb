# frozen_string_literal: true

module Arena
  module Scenarios
    # Steady load; a third of the way in, SIGKILL one worker (or the only
    # process). A server that dies, or does not replace the worker, is a
    # finding, not a failure of Arena.
    class Crash < Base
      scenario "crash", "SIGKILL a worker a third into steady load; errors, recovery, respawn"

      def disruptive? = true

      def planned(_load, _adapter) = 1

      def call(ctx)
        settings = ctx.settings(duration: [ctx.load.duration, 6].max)
        at = settings.duration / 3.0
        record = measure(ctx, settings, variant: "kill-worker") do
          At.schedule((settings.warmup || 0) + at) do
            before = ctx.server.pids.size
            {"victim" => ctx.adapter.kill_worker(ctx.server.group), "procs_before" => before}
          end
        end
        finish(ctx, record, at)
      end

      private

      def finish(ctx, record, at)
        kill = record["extra"] || {}
        after = ctx.server.pids
        samples = record.dig("probes", "samples") || []
        analysis = EventAnalysis.call(record.dig("load", "timeline") || [], at: at)
        replaced = after.size >= kill["procs_before"].to_i && !after.include?(kill["victim"])
        outcome = if after.empty? then "died"
        elsif replaced then "replaced"
        else "not replaced"
        end
        [record.merge("extra" => kill.merge(analysis).merge(
          "procs_after" => after.size, "procs_min_sampled" => samples.map { |s| s["procs"] }.min,
          "outcome" => outcome, "longest_us" => record.dig("load", "latency_us", "max")
        ))]
      end
    end
  end
end
