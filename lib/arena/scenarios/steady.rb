# frozen_string_literal: true

require_relative "../plan/estimate"
require_relative "base"

module Arena
  module Scenarios
    # Closed model: -c connections for -d seconds after a warm-up to a steady
    # state (Warmup, bounded by --warmup-max) and -w seconds, with
    # keep-alive on, off, or both side by side.
    class Steady < Base
      scenario "steady", "closed loop, -c connections for -d seconds"
      setting :round_requests, flag: "--round-requests N", type: Integer, default: 2000, check: 0..100_000_000,
        help: "steady: a round lasts long enough for N requests at the rate its warm-up reached (longer than -d where the app is slow; at most 5 s; 0: -d as given)"

      def self.throughput_basis? = true

      def call(ctx)
        ctx.load.keep_alive_modes.map do |keep_alive|
          # Sampled at its start and stop only (Probes::Sampler): a throughput
          # round keeps the observer out of its figure.
          measure(ctx, ctx.settings(keep_alive: keep_alive), variant: variant(keep_alive), warm: true, interval: nil)
        end
      end

      # Warmup runs slices until steady or --warmup-max: on this machine a
      # fast server is steady in about half the bound.
      def self.warm_up_s(guess)
        guess.load.keep_alive_modes.size * (Plan::Estimate::MEASURE_S + guess.load.warmup_limit * 0.5)
      end

      def warm_up(ctx)
        ctx.load.keep_alive_modes.to_h { |keep_alive| [variant(keep_alive), warm(ctx, ctx.settings(keep_alive: keep_alive), settle: true)] }
      end

      private

      def variant(keep_alive) = keep_alive ? "keep-alive" : "close"
    end
  end
end
