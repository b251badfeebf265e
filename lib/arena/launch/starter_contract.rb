# frozen_string_literal: true

module Arena
  module Launch
    # The one written contract of what brings server configs up for a run and
    # owns what it brought up, implemented twice: Launch::Starter on this host,
    # Remote::Starter on the server host through its agent. Launch::Session,
    # the Runner and Tune::Trial use nothing else, so the two cannot drift
    # apart silently: test/unit/launch/starter_contract_test.rb and
    # test/integration/starter_contract_test.rb run the same checks on both.
    #
    #   start(adapter, dir)  -> the Launch::ServerContract started (and the plan's front before it, pointed
    #                           at it); raises Launch::LocalServer::Failed (with its log tail) or Error
    #   server, front        -> what is up now (nil once stopped; front nil without --front)
    #   restart(old)         -> stops old, starts the same config again and points the front at it;
    #                           the new Launch::ServerContract (a fresh port unless --port or the front holds it)
    #   stop                 -> the front, then the server: a second Ctrl-C during the front's stop
    #                           must not skip the server's
    #   cleanup              -> stop, and remove what the run made for its servers (socket directory)
    #
    # What a starter cannot honour is refused at plan time, in one line, before
    # anything starts (Remote::Options#check: the agent puts nginx in front
    # only and serves plain HTTP/1.1), never run as something it was not.
    module StarterContract
      METHODS = %i[start server front restart stop cleanup].freeze

      # The front, then the server, whatever interrupts the first.
      def self.stop_both(front, server)
        front&.stop
      ensure
        server&.stop
      end
    end
  end
end
