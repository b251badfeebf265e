# frozen_string_literal: true

# What Arena asks of the operating system for the programs it starts: a process group of
# their own (spawned, watched, stopped, reaped) and the address a server listens on.
require_relative "system/process_group"
require_relative "system/bind"
