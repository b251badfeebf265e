# frozen_string_literal: true

# ROOT, APP_ENV and the error classes, then each folder's file. Each file requires what it uses;
# the folders not converted yet still lean on this order (the order data flows, docs/ARCHITECTURE.md).
require_relative "arena/core"
require_relative "arena/version"
require_relative "arena/support"
require_relative "arena/system"
require_relative "arena/load"
require_relative "arena/plan"
require_relative "arena/presets"
require_relative "arena/bundle"
require_relative "arena/servers"
require_relative "arena/fronts"
require_relative "arena/launch"
require_relative "arena/verify"
require_relative "arena/probes"
require_relative "arena/scenarios"
require_relative "arena/stats"
require_relative "arena/results"
require_relative "arena/verdicts"
require_relative "arena/planner"
require_relative "arena/run"
require_relative "arena/report"
require_relative "arena/cli"

Arena::Servers.load_all
Arena::Scenarios.load_all
Arena::Presets.load_all
