# frozen_string_literal: true

# A server's lifecycle: session, starter (the contract shared with remote), local server,
# certificates, cgroups, databases.
require_relative "launch/log_cap"
require_relative "launch/cgroups"
require_relative "launch/cgroup"
require_relative "launch/server_contract"
require_relative "launch/boot_log"
require_relative "launch/local_server"
require_relative "launch/certificates"
require_relative "launch/database_program"
require_relative "launch/database"
require_relative "launch/postgres"
require_relative "launch/starter_contract"
require_relative "launch/starter"
require_relative "launch/session"
