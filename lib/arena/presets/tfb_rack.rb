# frozen_string_literal: true

require_relative "../verify/tfb"
require_relative "presets"

module Arena
  module Presets
    # TechEmpower's Framework Benchmarks, Ruby's plain Rack entries: json,
    # plaintext, db, queries, fortunes and updates on PostgreSQL, each test
    # type loaded by wrk at several concurrency levels (plaintext pipelined).
    # The app (presets/tfb-rack) is Arena's own, written from TechEmpower's
    # published rules, raw pg driver; its database is made and seeded by Arena
    # (arena-db.sql) on a throwaway PostgreSQL; the rules' verification is
    # lib/arena/verify/tfb.rb. One level, 256 connections (TechEmpower's queries and
    # updates level), plaintext pipelined 16 deep; each server at Arena's
    # defaults. Puma on JRuby runs outside the app's bundle,
    # where pg (a C extension) is not: it is listed so that the run says so.
    Presets.define(
      name: "tfb-rack",
      seed: "https://github.com/TechEmpower/FrameworkBenchmarks/wiki/Project-Information-Framework-Tests-Overview",
      method: "wrk, one run per test type and concurrency level, best reported; the rules' text: json, db and fortunes at 8-256 " \
        "connections, queries and updates at 256 with 1-20 queries, plaintext pipelined at 256-16,384; PostgreSQL; " \
        "Ruby's rack entries on Puma (rack), Iodine, Falcon, Unicorn; TechEmpower's own servers (app, database and load on separate machines)",
      finding: "a run posted in TechEmpower/FrameworkBenchmarks#9493 (2025-01-03): rack (Puma) json 149,247 req/s, plaintext 102,678, " \
        "db 48,456, query 28,472, fortunes 41,675, updates 16,547; rack-iodine 295,618, 351,213, 87,024, 71,838, 80,948, 38,250",
      servers: %w[puma unicorn falcon iodine pitchfork passenger puma-jruby],
      unavailable: {},
      app: "presets/tfb-rack/config.ru",
      workloads: Verify::Tfb.workloads,
      scenarios: %w[steady],
      options: {connections: 256, duration: 15.0, warmup: 5.0, rounds: 1, timeout: 30.0, database: "postgres"},
      shrink: {duration: 1.0, warmup: 0.5},
      default_scale: 0.2,
      app_gem: "pg",
      setup: "bundle install --gemfile presets/tfb-rack/Gemfile (script/setup does it)"
    )
  end
end
