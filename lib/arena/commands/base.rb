# frozen_string_literal: true

module Arena
  module Commands
    # What every subcommand is given: its own arguments and the two streams.
    # A subcommand answers `call` with the exit status.
    class Base
      def initialize(argv, out:, err:)
        @argv = argv
        @out = out
        @err = err
      end
    end
  end
end
