# frozen_string_literal: true

# The client side of a run on other hosts, over SSH: the hosts, the channel to
# each host's `arena agent`, the server there, the loaders' fleet and how their
# figures merge. Loaded by `arena run` (the plan reads remote/options.rb alone,
# the agent remote/loader_job.rb alone).
require_relative "remote/channel"
require_relative "remote/engines"
require_relative "remote/host"
require_relative "remote/loader_job"
require_relative "remote/merge"
require_relative "remote/options"
require_relative "remote/server"
require_relative "remote/session"
