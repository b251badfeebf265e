# frozen_string_literal: true

module Arena
  module Scenarios
    # Runs a block at a moment of the engine's counted phase (after its warm-up),
    # on a thread, so a scenario can act on the server while load runs.
    module At
      module_function

      def schedule(delay)
        Thread.new do
          sleep delay
          yield
        rescue => e
          {"error" => "#{e.class}: #{e.message}"}
        end
      end
    end
  end
end
