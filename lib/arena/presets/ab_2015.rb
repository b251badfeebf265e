# frozen_string_literal: true

require_relative "../plan/workloads"
require_relative "presets"

module Arena
  module Presets
    # Puma vs Unicorn (2015): ab -n 100 -c 10 (and higher concurrencies) on a
    # Rails page that queried a database and rendered through node.js, both
    # servers with 2 workers, Puma with max threads 1, 2 and 16. That page is
    # not available, so it is stood in for by its two halves: CPU work
    # (trial: the first 1,000 primes by trial division, several ms of Ruby,
    # where a rendered page costs tens of ms) and waiting with the GVL
    # released (a 50 ms sleep, the database and node.js calls). ab sends no
    # keep-alive unless asked (-k).
    Presets.define(
      name: "ab-2015",
      seed: "002_23b393bf54f7366f.txt",
      method: "ab -n 100 -c 10 (and higher concurrencies) on a Rails album page; 2 workers each, " \
        "Puma max threads 1, 2, 16 beside Unicorn; median and 99th-percentile response time",
      finding: "median response time statistically unchanged across all variations; " \
        "99th percentile consistently better with Unicorn, above all against single-threaded Puma",
      servers: %w[puma:workers=2,threads=1 puma:workers=2,threads=2 puma:workers=2,threads=16 unicorn:workers=2],
      unavailable: {},
      workloads: ["trial", Plan::Workloads.w("wait", "/sleep?ms=50", expect_body: "slept 50 ms")],
      scenarios: %w[count],
      options: {requests: 100, levels: [10, 25, 50], keep_alive: "off", timeout: 30.0},
      shrink: {requests: 10},
      default_scale: 1.0
    )
  end
end
