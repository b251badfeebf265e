# frozen_string_literal: true

# The runner and its two strategies (kept-up rounds, restarted rounds) on the steps they share, precision, rounds.
require_relative "run/kept_up_rounds"
require_relative "run/precision"
require_relative "run/restarted_rounds"
require_relative "run/rounds"
require_relative "run/runner"
require_relative "run/strategy"
