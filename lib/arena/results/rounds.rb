# frozen_string_literal: true

module Arena
  module Results
    # Which of a row's measurements stand for its rounds, read alike by the
    # store's intervals and the report's rows.
    module Rounds
      module_function

      # One figure per round: its clean one, or (all noisy) its last, the
      # re-run. Leaving out every noisy figure of a row when any round was
      # clean left a row of one round (the only quiet minute of a busy
      # machine, read fastest of its group and made everyone's reference)
      # and broke the pairing of its ratios. Measurements without rounds
      # keep the clean ones when there are any.
      def one_per_round(all)
        unless all.all?(&:repeat)
          clean = all.reject(&:noisy?)
          return clean.empty? ? all : clean
        end
        all.group_by(&:repeat).map { |_, figures| figures.reject(&:noisy?).last || figures.last }
      end
    end
  end
end
