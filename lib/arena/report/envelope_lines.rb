# frozen_string_literal: true

module Arena
  module Report
    # What the envelope did to each measurement, in sentences: an OOM kill
    # is a finding about the config (it does not fit), with when it happened
    # and what goodput did after; throttling and the cgroup's peak are said
    # once per config, at their worst.
    module EnvelopeLines
      module_function

      def call(document)
        measured = document.measured.select(&:envelope)
        kills = measured.select { |m| m.envelope.oom_killed? }.map { |m| oom_line(m) }
        kills + measured.group_by(&:server).map { |server, ms| usage_line(server, ms) }
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
        first = m.envelope.oom_at_s.first
        timeline = m.load&.timeline || []
        return "" if first.nil? || timeline.size < 2
        before, after = timeline.partition { |p| p.t <= first }
        return "" if before.empty? || after.empty?
        rate = ->(points) { points.sum(&:good) / (points.size * m.load.interval_s) }
        was = rate.call(before)
        now = rate.call(after)
        "; goodput #{(now < was) ? "fell" : "went"} from #{Format.rps(was)} req/s before to #{Format.rps(now)} req/s after"
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
