# frozen_string_literal: true

# What Arena asks of the operating system: the few /proc files it reads, a process group of
# their own for the programs it starts (spawned, watched, stopped, reaped), and the address a
# server listens on.
require_relative "system/procfs"
require_relative "system/process_group"
require_relative "system/bind"
