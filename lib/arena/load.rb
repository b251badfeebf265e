# frozen_string_literal: true

# The load engine and its settings: one row per setting, from which the CLI, the plan, arena.yml
# and the engine's argv are made. The settings name the transports, so those come first.
require_relative "load/transport"
require_relative "load/slow_clients"
require_relative "load/profile"
require_relative "load/settings"
# The whole table and the plan's values of it hold the scenarios' own rows:
# they are made when first used, after Scenarios.load_all (lib/arena.rb).
Arena::Load.autoload(:TABLE, File.expand_path("load/options", __dir__))
Arena::Load.autoload(:Options, File.expand_path("load/options", __dir__))
require_relative "load/engine"
