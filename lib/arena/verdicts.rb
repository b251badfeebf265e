# frozen_string_literal: true

# Every rule that turns figures into a word: pure functions of values (the mutant target).
require_relative "verdicts/verdict"
require_relative "verdicts/stall"
require_relative "verdicts/tail_stall"
require_relative "verdicts/concurrency"
require_relative "verdicts/batching"
require_relative "verdicts/pool_exhaustion"
require_relative "verdicts/truncated_response"
require_relative "verdicts/crash_line"
require_relative "verdicts/event_analysis"
require_relative "verdicts/soak"
require_relative "verdicts/spike"
require_relative "verdicts/rate_plan"
require_relative "verdicts/knee_rounds"
require_relative "verdicts/flags"
require_relative "verdicts/head_of_line"
require_relative "verdicts/noise"
