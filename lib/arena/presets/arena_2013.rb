# frozen_string_literal: true

require_relative "presets"

module Arena
  module Presets
    # "App Server Arena" (2013): siege -r 1000 -c 100 -b against four paths of
    # one app. Siege 3.0 closed every connection and gave up on a request after
    # 30 s, which is what made a server "fail" a test, so both are kept. Puma ran
    # two workers (one per core) with its default 16 threads; Unicorn's workers
    # follow the article's own rule (cores x 1.5 + 1); Passenger's pool is its
    # default of 6. Time grows with connections x repetitions (every /sleep is
    # a second), so both shrink.
    Presets.define(
      name: "arena-2013",
      seed: "000_93218a399dd2707b.txt",
      method: "siege -r 1000 -c 100 -b (connection close, 30 s timeout) on /server, /pi, /sleep, /random; " \
        "Passenger 3/4, Unicorn, Thin, Puma (2 workers) on MRI 2.0, 2-vCPU VMs behind nginx",
      finding: "Unicorn was the only one to finish every /sleep request (Thin finished 66, Puma under 25%); " \
        "only Unicorn and Thin finished /pi; Puma also failed /random; Passenger 4 finished everything",
      servers: %w[unicorn:workers=4 puma:workers=2,threads=16 thin:servers=4 passenger:pool=6],
      unavailable: {},
      workloads: %w[server pi sleep random],
      scenarios: %w[reps],
      options: {connections: 100, reps: 1000, keep_alive: "off", timeout: 30.0, front: "nginx"},
      shrink: {connections: 1, reps: 1},
      default_scale: 0.02
    )
  end
end
