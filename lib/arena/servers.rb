# frozen_string_literal: true

# The servers' adapters: the contract (base), their tuning, Rails' knobs; one file per server
# is loaded by Servers.load_all.
require_relative "servers/rails_knobs"
require_relative "servers/base"
