# frozen_string_literal: true

require_relative "presets"

module Arena
  module Presets
    # Puma vs Passenger vs Unicorn (2016): wrk -t 4 -c 100 -d 30s on a Rack app
    # summing the first 1,000 primes, best of 3, with keep-alive and again with
    # Connection: close; no proxy. Puma ran -w 8 --preload -t 16:32 (Arena's
    # threads setting is min = max, so 32); Unicorn's worker count was not
    # published, so it gets Puma's 8; Passenger ran its defaults (pool 6; Arena
    # turns turbocaching off and says so in the label). Only the load's length
    # shrinks: 100 connections cost nothing in time.
    Presets.define(
      name: "primes-2016",
      seed: "001_acf245167b555f6d.txt",
      method: "wrk -t 4 -c 100 -d 30s --timeout 2000 on /?count=1000 (sum of the first 1,000 primes), best of 3, " \
        "keep-alive and Connection: Close; Ruby 2.3 and JRuby 9.1, no proxy, 4-core laptop",
      finding: "keep-alive: Puma (MRI) 26,858 req/s, Passenger 10,036, Unicorn 548; without keep-alive all ~548 req/s; " \
        "RAM peak Passenger ~138 MB < Unicorn ~183 < Puma ~280",
      servers: %w[puma:workers=8,threads=32,preload=true passenger:pool=6 unicorn:workers=8 puma-jruby:threads=32],
      unavailable: {},
      workloads: %w[primes],
      scenarios: %w[steady],
      options: {connections: 100, duration: 30.0, warmup: 1.0, keep_alive: "both", rounds: 3, timeout: 30.0},
      shrink: {duration: 1.0},
      default_scale: 0.1
    )
  end
end
