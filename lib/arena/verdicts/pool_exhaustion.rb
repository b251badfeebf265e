# frozen_string_literal: true

require_relative "verdict"

module Arena
  module Verdicts
    # Rails' connection pool ran dry: ActiveRecord::ConnectionTimeoutError in
    # the server's log during a measurement while requests failed or stalled.
    # The usual cause is a config with more threads per process than the
    # app's pool (database.yml's `pool`, RAILS_MAX_THREADS by default): the
    # extra threads wait for a connection, then fail. Its own error kind, so
    # recommendations and tune say what happened instead of "errors".
    module PoolExhaustion
      PATTERN = /ActiveRecord::ConnectionTimeoutError/
      # What the app logged, read once per measurement at the boundary.
      Evidence = Struct.new(:timeouts, :wait_s, keyword_init: true)

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # The summary's flag (Flags::RULES): the pool verdict the scenario read, when it says exhausted.
      def flag(f) = (f.pool if f.pool&.word == "pool-exhausted")

      # The log text of one measurement -> Evidence (the count and, when Rails
      # said it, the wait: "could not obtain a connection from the pool within
      # 5.000 seconds ... all pooled connections were in use"; Rails does not
      # say the pool's size, which comes from the config instead).
      def evidence(log_text)
        text = log_text.to_s
        lines = text.each_line.grep(PATTERN)
        wait = text[/within ([\d.]+) seconds/, 1]&.to_f
        Evidence.new(timeouts: lines.size, wait_s: wait).freeze
      end

      # evidence: Evidence; errors: the engine's error count (failed and
      # timed-out requests); threads: the config's threads per process (nil: no
      # fixed figure); pool: the pool the server was given (RAILS_MAX_THREADS
      # as it reached it, or database.yml's max_connections or pool as the
      # server read it), or nil; key: the database.yml key that sets it.
      #
      # The log lines alone prove nothing about the requests measured: a
      # background job (or a thread the app starts) may wait out the pool while
      # every request is served. Only failed or timed-out requests beside them
      # make it the requests' problem.
      def verdict(evidence:, errors:, threads:, pool:, key: "pool")
        return Verdicts::Verdict.of("ok") if evidence.timeouts.zero?
        unless errors.to_i.positive?
          return Verdicts::Verdict.of("ok", "#{evidence.timeouts} log lines with ActiveRecord::ConnectionTimeoutError, but no request " \
            "failed or timed out: something besides the requests (a background job?) waited for the pool")
        end
        cause = if threads && pool && threads > pool
          "#{threads} threads per process share a pool of #{pool} connections"
        else
          "more requests waited for a database connection than the pool holds"
        end
        Verdicts::Verdict.of("pool-exhausted", "#{evidence.timeouts} log lines with ActiveRecord::ConnectionTimeoutError " \
          "(#{errors} failed requests): #{cause}; give the pool as many connections as threads (RAILS_MAX_THREADS, " \
          "database.yml's #{key}) or run fewer threads")
      end
    end
  end
end
