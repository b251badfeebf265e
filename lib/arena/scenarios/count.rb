# frozen_string_literal: true

require_relative "base"

module Arena
  module Scenarios
    # ab -n N -c C: a fixed total of requests shared by C connections, at each
    # concurrency of --levels (or -c), reported with ab's own figures (median
    # and the percentile table) so a 2015 result can be set beside a new one.
    # No warm-up: ab has none, and the first requests are part of what it saw.
    class Count < Base
      scenario "count", "fixed total: -n requests over -c connections (ab -n -c), at each --levels concurrency"
      setting :requests, flag: "-n N", type: Integer, default: 1000, check: 1..100_000_000, help: "count: total requests"
      figures :ab

      include Levels

      def call(ctx)
        each_level(ctx) do |connections, keep_alive|
          settings = ctx.settings(connections: connections, keep_alive: keep_alive, duration: nil, warmup: nil,
            requests: ctx.load.requests)
          measurement = measure(ctx, settings, variant: "c=#{connections} #{keep_alive ? "keep-alive" : "close"}")
          measurement.with(extra: {"ab" => self.class.ab_report(measurement.load, connections)})
        end
      end

      # ab's summary, derived from the engine's document (times in ms, as ab prints them).
      def self.ab_report(load, connections)
        completed = load.completed
        elapsed = load.duration_s
        # ab's table is of every response, good or not.
        ms = ->(name) { (load.latency_all[name.to_sym].to_f / 1000).round(2) }
        {
          "concurrency" => connections, "complete_requests" => completed,
          "failed_requests" => load.errors,
          "time_taken_s" => elapsed.round(3),
          "requests_per_second" => elapsed.zero? ? 0.0 : (completed / elapsed).round(2),
          "time_per_request_ms" => ms.call("mean"),
          "median_ms" => ms.call("p50"), "p75_ms" => ms.call("p75"), "p90_ms" => ms.call("p90"),
          "p99_ms" => ms.call("p99"), "longest_ms" => ms.call("max")
        }
      end
    end
  end
end
