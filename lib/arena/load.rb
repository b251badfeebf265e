# frozen_string_literal: true

# The load engine and its settings: one row per setting, from which the CLI, the plan, arena.yml
# and the engine's argv are made.
require_relative "load/transport"
require_relative "load/slow_clients"
require_relative "load/profile"
require_relative "load/settings"
require_relative "load/options"
require_relative "load/engine"
