# frozen_string_literal: true

# What assembles a Plan from what it names (an app, servers, scenarios, a preset, a front, remote hosts): the
# builder (flags over arena.yml over a preset over defaults), arena.yml, the server list and a preset's servers.
require_relative "planner/server_list"
require_relative "planner/preset_servers"
require_relative "planner/config_file"
require_relative "planner/builder"
