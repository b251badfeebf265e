# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # SIGINT and SIGTERM stop sending and still print the document.
  class EngineSignalsTest < EngineCase
    include TestServers

    def test_sigint_prints_valid_json
      KeepAlive.open do |server|
        run = run_engine(server.target, "-c", 4, "-d", 30, "--json", interrupt_after: 0.8, deadline: 5)
        refute run.status.signaled?, "engine died of the signal:\n#{run.describe}"
        assert_consistent(run)
        assert_operator run.completed, :>, 0, run.describe
        assert_operator run.json["duration_s"], :<, 3, run.describe
        assert_operator run.elapsed, :<, 3, run.describe
        assert_no_errors(run)
      end
    end

    def test_sigterm_prints_valid_json
      KeepAlive.open do |server|
        run = run_engine(server.target, "-c", 4, "-d", 30, "--json", interrupt_after: 0.5, signal: "TERM", deadline: 5)
        refute run.status.signaled?, "engine died of the signal:\n#{run.describe}"
        assert_consistent(run)
        assert_operator run.completed, :>, 0, run.describe
        assert_operator run.elapsed, :<, 3, run.describe
      end
    end

    # In-flight requests that never finish are waited for at most --timeout.
    def test_sigint_with_stalled_requests_waits_at_most_the_timeout
      Stall.open do |server|
        run = run_engine(server.target, "-c", 2, "-d", 30, "--timeout", 1, "--json", interrupt_after: 0.3, deadline: 6)
        refute run.status.signaled?, "engine died of the signal:\n#{run.describe}"
        assert_consistent(run)
        assert_equal 0, run.completed
        assert_operator run.elapsed, :<, 2.5, run.describe
      end
    end
  end
end
