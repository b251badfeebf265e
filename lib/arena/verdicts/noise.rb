# frozen_string_literal: true

require_relative "verdict"

module Arena
  module Verdicts
    # What the machine's other work during a measurement means for it:
    # "noisy" (run again once at the end of its round) or "quiet". Reads the
    # figures Probes::Noise takes from two snapshots of /proc.
    module Noise
      # Past either, the measurement is flagged `noisy`. A fifth of a core is
      # what a busy neighbour takes from a 2-core server's share here and more
      # than the idle servers kept up between rounds use together (measured:
      # under 3%); 5% steal is where a VM's throughput moves by more than the
      # 5% precision Arena aims at.
      OTHER_CPU_LIMIT_PCT = 20.0
      STEAL_LIMIT_PCT = 5.0

      extend self

      # figures: a Results::NoiseFigures, or nil when none were taken.
      def judge(figures)
        return Verdict.cannot_judge("no noise figures") if figures.nil?
        over = []
        over << format("other processes took %.0f%% of a core (limit %.0f%%)", figures.other_cpu_pct, OTHER_CPU_LIMIT_PCT) if figures.other_cpu_pct > OTHER_CPU_LIMIT_PCT
        over << format("steal %.1f%% (limit %.0f%%)", figures.steal_pct, STEAL_LIMIT_PCT) if figures.steal_pct > STEAL_LIMIT_PCT
        over.empty? ? Verdict.of("quiet") : Verdict.of("noisy", over.join("; "))
      end
    end
  end
end
