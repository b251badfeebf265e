# frozen_string_literal: true

# What is read beside the load: cgroups, queue time, samplers, noise; ProbeSet starts and
# stops them together.
require_relative "probes/cgroup_watch"
require_relative "probes/machine_speed"
require_relative "probes/noise"
require_relative "probes/probe_set"
require_relative "probes/queue_time"
require_relative "probes/sampler"
require_relative "probes/spread"
