# frozen_string_literal: true

module Arena
  module Scenarios
    # Steady load; a third of the way in, the server's own zero-downtime
    # mechanism, once per mechanism it has. A server with none is reported
    # as `unsupported`, which is a finding. Timelines at 100 ms, as for crash.
    class Restart < Base
      scenario "restart", "zero-downtime restart a third into steady load, per mechanism"
      figures :mechanism, :signalled, :pids_before, :pids_after, :failed_requests, :longest_us, :serving_after,
        :workers_replaced, :unsupported, *Verdicts::EventAnalysis::FIGURES

      def disruptive? = true

      def planned(_load, adapter) = adapter.restart_mechanisms.size

      def self.seconds(guess) = new.planned(guess.load, guess.adapter) * (guess.measurement_s([guess.load.duration, 6].max) + guess.boot_s)

      def call(ctx)
        mechanisms = ctx.adapter.restart_mechanisms
        return [unsupported(ctx)] if mechanisms.empty?
        mechanisms.map.with_index do |mechanism, i|
          ctx.restart_server if i.positive?
          one(ctx, mechanism)
        end
      end

      def self.finding(m)
        x = m.extra
        return "#{m.server} #{m.workload} restart: unsupported (#{x["unsupported"]})" if m.summary?
        "#{m.server} #{m.workload} restart #{m.variant}: #{x["failed_requests"]} failed requests, " \
          "longest #{Support::Format.duration_us(x["longest_us"])}, dip #{x["dip_pct"]}%#{", NOT serving after" unless x["serving_after"]}"
      end

      # "restart phased  0 failed, longest 526 ms, dip 100%";
      # "restart  unsupported: no zero-downtime restart Arena can trigger".
      def self.brief(m)
        x = m.extra
        s = Support::Short
        return ["restart", "unsupported: #{x["unsupported"].to_s.sub(/\A#{Regexp.escape(m.server.to_s.split(":").first)} has /, "")}"] if m.summary?
        ["restart #{m.variant}", "#{s.rate(x["failed_requests"])} failed, longest #{s.duration_us(x["longest_us"])}, " \
          "dip #{s.pct(x["dip_pct"])}#{", NOT serving after" unless x["serving_after"]}"]
      end

      def self.sections(document, colors:) = Report::TimelineCharts.new(document, scenario: self, colors: colors).sections

      # The event's name on its timeline.
      def self.event_label(m) = "#{m.variant} restart"

      private

      def one(ctx, mechanism)
        settings = ctx.settings(duration: [ctx.load.duration, 6].max, timeline_ms: Verdicts::EventAnalysis::TIMELINE_MS)
        at = settings.duration / 3.0
        record = measure(ctx, settings, variant: mechanism.to_s) do
          At.schedule((settings.warmup || 0) + at) do
            before = ctx.server.pids
            outcome = ctx.server.restart(mechanism)
            {"mechanism" => mechanism.to_s, "signalled" => outcome.to_s, "pids_before" => before}
          end
        end
        after = ctx.server.pids
        before = Array(record.extra["pids_before"])
        record.with(extra: record.extra.merge(Verdicts::EventAnalysis.call(record.load, at: at)).merge(
          "failed_requests" => record.load.errors, "longest_us" => record.load.latency_all.max,
          "pids_after" => after, "serving_after" => !after.empty?, "workers_replaced" => (before - after).size
        ))
      end

      def unsupported(ctx)
        summary_record(ctx, "none", "unsupported" => "#{ctx.adapter.key} has no zero-downtime restart Arena can trigger")
      end
    end
  end
end
