# frozen_string_literal: true

# The remote side of a distributed run (`arena agent`): the agent, its fields, inbox and load requests.
# Loaded by `arena agent` alone.
require_relative "agent/agent"
require_relative "agent/fields"
require_relative "agent/inbox"
require_relative "agent/load_request"
