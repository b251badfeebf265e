# frozen_string_literal: true

# What a measurement does: settle, warm-up, one measurement (Measuring), the base; each scenario's file is
# loaded by Scenarios.load_all.
require_relative "scenarios/at"
require_relative "scenarios/base"
require_relative "scenarios/figures"
require_relative "scenarios/measuring"
require_relative "scenarios/round_size"
require_relative "scenarios/settle"
require_relative "scenarios/warmup"
