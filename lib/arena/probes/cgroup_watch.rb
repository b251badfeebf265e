# frozen_string_literal: true

require_relative "../results/envelope_figures"
require_relative "../support/clock"

module Arena
  module Probes
    # Watches one server's cgroup through one measurement: the CPU
    # throttling and OOM kills in it (counter differences), the peak memory
    # the cgroup saw, and when each OOM kill happened (the counter is polled
    # on a thread of its own, as the probes sample).
    class CgroupWatch
      def initialize(cgroup, interval: 0.2)
        @cgroup = cgroup
        @interval = interval
        @oom_at = []
      end

      def start
        @scope = @cgroup.reset_peak
        @before = @cgroup.read
        @started = Support::Clock.now
        @thread = Thread.new do
          seen = @before.oom_kills.to_i
          loop do
            sleep @interval
            seen = note_kills(seen)
          end
        end
        self
      end

      # -> Results::EnvelopeFigures for the measurement.
      def stop
        @thread&.kill&.join
        after = @cgroup.read
        note_kills(@oom_at.size + @before.oom_kills.to_i, after)
        delta = after.since(@before)
        envelope = @cgroup.envelope
        Results::EnvelopeFigures.new(
          limits: envelope.to_s, cpus: envelope.cpus, memory_bytes: envelope.memory_bytes, cgroup_version: @cgroup.version,
          periods: delta.periods, throttled_periods: delta.throttled_periods, throttled_s: (delta.throttled_us / 1e6).round(3),
          peak_bytes: after.peak_bytes, peak_scope: @scope, oom_kills: delta.oom_kills, oom_at_s: @oom_at.dup.freeze,
          seconds: (Support::Clock.now - @started).round(3)
        ).freeze
      end

      private

      # Each kill since the last look is timed at this look.
      def note_kills(seen, reading = @cgroup.read)
        now = reading.oom_kills.to_i
        (now - seen).times { @oom_at << (Support::Clock.now - @started).round(1) } if now > seen
        [now, seen].max
      end
    end
  end
end
