# frozen_string_literal: true

module Arena
  # TechEmpower's Framework Benchmarks, Ruby's plain Rack entries: json,
  # plaintext, db, queries, fortunes and updates on PostgreSQL, each test
  # type loaded for 15 s at concurrency up to 512 (wrk; plaintext pipelined).
  # The app (presets/tfb-rack) is Arena's own, written from TechEmpower's
  # published rules, raw pg driver; its database is made and seeded by Arena
  # (arena-db.sql) on a throwaway PostgreSQL; the rules' verification is
  # lib/arena/tfb.rb. One level, 256 connections (TechEmpower's queries and
  # updates level), no pipelining (the engine does not pipeline); each
  # server at Arena's defaults. Puma on JRuby runs outside the app's bundle,
  # where pg (a C extension) is not: it is listed so that the run says so.
  Presets.define(
    name: "tfb-rack",
    seed: "https://github.com/TechEmpower/FrameworkBenchmarks/wiki/Project-Information-Framework-Tests-Overview",
    method: "wrk, 15 s per test type and concurrency level (16-512), best level reported; json, plaintext (pipelined x16), " \
      "db, queries and updates at 20 queries, fortunes; PostgreSQL; Ruby rack entries on Puma, Unicorn, Falcon, Iodine, " \
      "Pitchfork, Passenger; 28-thread Xeon servers, 10 GbE",
    finding: "published per round at tfb-status.techempower.com and techempower.com/benchmarks (see docs/reproductions.md)",
    servers: %w[puma unicorn falcon iodine pitchfork passenger puma-jruby],
    unavailable: {},
    app: "presets/tfb-rack/config.ru",
    workloads: Tfb.workloads,
    scenarios: %w[steady],
    options: {connections: 256, duration: 15.0, warmup: 5.0, repeat: 1, timeout: 30.0, database: "postgres"},
    shrink: {duration: 1.0, warmup: 0.5},
    default_scale: 0.2,
    app_gem: "pg",
    setup: "bundle install --gemfile presets/tfb-rack/Gemfile (script/setup does it)"
  )
end
