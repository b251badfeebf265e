# frozen_string_literal: true

# Everything decided before a process starts: the Plan, workloads, machine, runtime, envelope, budget
# and estimate (planner.rb: what assembles one).
require_relative "plan/plan"
require_relative "plan/machine"
require_relative "plan/workloads"
require_relative "plan/requests_file"
require_relative "plan/runtime"
require_relative "plan/envelope"
require_relative "plan/estimate"
require_relative "plan/budget"
require_relative "plan/proxy_headers"
require_relative "plan/config_reader"
require_relative "plan/baseline"
require_relative "plan/rails_files"
require_relative "plan/app_probe"
require_relative "plan/discovery"
require_relative "plan/pace"
