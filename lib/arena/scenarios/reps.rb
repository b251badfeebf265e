# frozen_string_literal: true

require_relative "base"

module Arena
  module Scenarios
    # siege -r R -c C: a fixed amount of work, C connections each sending R
    # requests, reported with siege's own fields so old results can be set
    # beside new ones.
    class Reps < Base
      scenario "reps", "fixed work: -c connections x -r repetitions (siege -r -c)"
      setting :reps, flag: "-r N", type: Integer, default: 100, check: 1..10_000_000, help: "reps: requests per connection"
      figures :siege

      # With --levels it runs once per concurrency (siege -c 5, then -c 25).
      include Levels

      def self.throughput_basis? = true

      def call(ctx)
        each_level(ctx) do |connections, keep_alive|
          settings = ctx.settings(connections: connections, keep_alive: keep_alive, duration: nil, warmup: nil,
            reps: ctx.load.reps)
          variant = keep_alive ? "keep-alive" : "close"
          variant = "c=#{connections} #{variant}" if ctx.load.levels
          measurement = measure(ctx, settings, variant: variant)
          measurement.with(extra: {"siege" => self.class.siege_report(measurement.load)})
        end
      end

      # siege's report, derived from the engine's document.
      def self.siege_report(load)
        completed = load.completed
        failed = load.errors
        ok = load.status.sum { |code, n| code.to_i.between?(200, 399) ? n : 0 }
        elapsed = load.duration_s
        mean_s = load.latency_all.mean.to_f / 1e6
        bytes = load.bytes_received.to_f
        attempts = completed + failed
        {
          "transactions" => completed,
          "availability_pct" => attempts.zero? ? 0.0 : (100.0 * completed / attempts).round(2),
          "elapsed_s" => elapsed.round(2),
          "data_transferred_mb" => (bytes / 1_048_576).round(2),
          "response_time_s" => mean_s.round(4),
          "transaction_rate" => elapsed.zero? ? 0.0 : (completed / elapsed).round(2),
          "throughput_mb_s" => elapsed.zero? ? 0.0 : (bytes / 1_048_576 / elapsed).round(2),
          "concurrency" => elapsed.zero? ? 0.0 : (completed * mean_s / elapsed).round(2),
          "successful" => ok, "failed" => failed,
          "longest_s" => (load.latency_all.max.to_f / 1e6).round(4),
          "shortest_s" => (load.latency_all.min.to_f / 1e6).round(4)
        }
      end
    end
  end
end
