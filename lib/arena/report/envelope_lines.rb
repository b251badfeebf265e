# frozen_string_literal: true

require_relative "../support/format"
require_relative "../support/short"

module Arena
  module Report
    # What the envelope did to each measurement, in sentences: an OOM kill
    # is a finding about the config (it does not fit), with when it happened
    # and what goodput did after; throttling and the cgroup's peak are said
    # once per config, at their worst.
    module EnvelopeLines
      module_function

      def call(document) = entries(document).map(&:last)

      # [server, workload (nil: not said in the terminal), the terminal's [word, text], the sentence].
      def entries(document)
        measured = document.measured.select(&:envelope)
        kills = measured.select { |m| m.envelope.oom_killed? }.map { |m| [m.server, nil, oom_brief(m), oom_line(m)] }
        kills + measured.group_by(&:server).map { |server, ms| [server, nil, usage_brief(ms), usage_line(server, ms)] }
      end

      # ["OOM-killed", "3 processes from 0.8 s; goodput 410 -> 35/s"]: the
      # limits are in the config's label (@memory=150MiB), the times report.md's.
      def oom_brief(m)
        e = m.envelope
        rates = goodput_rates(m)
        ["OOM-killed", "#{e.oom_kills} #{(e.oom_kills == 1) ? "process" : "processes"}" \
          "#{" from #{Support::Short.sig(e.oom_at_s.first.to_f)} s" if e.oom_at_s.any?}" \
          "#{"; goodput #{Support::Short.rate(rates[0])} -> #{Support::Short.rate(rates[1])}/s" if rates}"]
      end

      # ["envelope", "throttled 18.5% of CPU periods; peak 149 MiB"]
      def usage_brief(ms)
        worst = ms.max_by { |m| m.envelope.throttled_pct }.envelope
        peak = ms.filter_map { |m| m.envelope.peak_mib }.max
        parts = []
        parts << "throttled #{Support::Short.pct(worst.throttled_pct)} of CPU periods" if worst.cpus
        parts << "peak #{Support::Short.memory_kb(peak * 1024)}" if peak
        ["envelope", parts.join("; ")]
      end

      # "unicorn:workers=4@memory=512MiB /leak steady: 2 processes OOM-killed
      # at 3.2 s, 3.8 s; goodput fell from 410 req/s before to 35 req/s after"
      def oom_line(m)
        e = m.envelope
        at = e.oom_at_s.first(4).map { |t| "#{t} s" }.join(", ")
        at += " and #{e.oom_at_s.size - 4} more" if e.oom_at_s.size > 4
        "#{m.server} #{m.workload} #{m.label}: #{e.oom_kills} #{(e.oom_kills == 1) ? "process" : "processes"} OOM-killed " \
          "under #{e.memory_mib ? "#{e.memory_mib.round} MiB" : "the limit"}#{" at #{at}" unless at.empty?}#{goodput_change(m)}"
      end

      def goodput_change(m)
        was, now = goodput_rates(m)
        return "" unless was
        "; goodput #{(now < was) ? "fell" : "went"} from #{Support::Format.rps(was)} req/s before to #{Support::Format.rps(now)} req/s after"
      end

      # [goodput before the first kill, after it] in req/s, or nil.
      def goodput_rates(m)
        first = m.envelope.oom_at_s.first
        timeline = m.load&.timeline || []
        return nil if first.nil? || timeline.size < 2
        before, after = timeline.partition { |p| p.t <= first }
        return nil if before.empty? || after.empty?
        rate = ->(points) { points.sum(&:good) / (points.size * m.load.interval_s) }
        [rate.call(before), rate.call(after)]
      end

      # The worst throttling and the highest peak any measurement of a config saw.
      def usage_line(server, ms)
        worst = ms.max_by { |m| m.envelope.throttled_pct }.envelope
        peak = ms.filter_map { |m| m.envelope.peak_mib }.max
        parts = []
        parts << "CPU quota #{worst.cpus} throttled #{worst.throttled_pct}% of CFS periods (#{worst.throttled_s} s)" if worst.cpus
        parts << "peak memory #{peak} MiB#{" of #{worst.memory_mib.round} MiB" if worst.memory_mib} as the cgroup counted it" if peak
        "#{server} in its envelope: #{parts.join("; ")}"
      end
    end
  end
end
