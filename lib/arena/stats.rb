# frozen_string_literal: true

# Statistics on figures: intervals, differences, paired rounds, steady state, tails, histograms, fits.
require_relative "stats/difference"
require_relative "stats/histogram"
require_relative "stats/interval"
require_relative "stats/linear_fit"
require_relative "stats/median"
require_relative "stats/paired"
require_relative "stats/stats"
require_relative "stats/steady_state"
require_relative "stats/student_t"
require_relative "stats/tail_count"
