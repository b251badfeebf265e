# frozen_string_literal: true

require_relative "../plan/workloads"
require_relative "presets"

module Arena
  module Presets
    # Unicorn vs Thin vs Passenger behind nginx (undated): JMeter ramps to N
    # concurrent clients looping 10 times, asserting the body holds the client
    # address; N rises by 100 until errors appear. Only errors broke a level,
    # so the SLO is set out of reach and the timeout long. Unicorn had 4
    # workers and Passenger 4 instances; the seed's 4 Thin sockets run as a
    # Thin cluster of 4 ports behind nginx round-robin. Through nginx the app sees nginx's address,
    # which on loopback is the client's own: the body must contain it.
    Presets.define(
      name: "breakpoint-nginx",
      seed: "003_c85dafa2c0b90977.txt",
      method: "JMeter ramp to N concurrent x 10 loops on a REMOTE_ADDR echo app behind nginx, body asserted; " \
        "N raised by 100 until errors; last error-free throughput and N",
      finding: "Unicorn 2,451 req/s @ 1,500; Thin 2,102 req/s @ 900; Passenger 1,549 req/s @ 400",
      servers: %w[unicorn:workers=4 thin:servers=4 passenger:pool=4],
      unavailable: {},
      workloads: [Plan::Workloads.builtin.fetch("ip").dup.tap { |w| w.expect_body = "127.0.0.1" }.freeze],
      scenarios: %w[breakpoint],
      options: {front: "nginx", step: 100, max_connections: 2000, duration: 5.0, warmup: 1.0, slo_ms: 60_000.0,
                timeout: 30.0, max_time: 600.0},
      shrink: {max_connections: 100, duration: 1.0, max_time: 30.0},
      default_scale: 0.5
    )
  end
end
