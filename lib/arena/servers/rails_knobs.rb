# frozen_string_literal: true

module Arena
  module Servers
    # Rails' own concurrency knobs follow the server config, as a deployed
    # Rails app reads them: its generated database.yml sizes the connection
    # pool from RAILS_MAX_THREADS, and its puma.rb (and Puma itself) read
    # WEB_CONCURRENCY. So a config with 10 threads per process gets a pool of
    # 10, not the default 5 it would exhaust. --env overrides either;
    # --no-rails-knobs keeps the app's own values.
    module RailsKnobs
      NAMES = %w[RAILS_MAX_THREADS WEB_CONCURRENCY].freeze

      module_function

      # The knobs for this adapter's config: threads each process serves
      # requests on (none where there is no fixed figure: fibers, a thread
      # per connection), and its process count (0 for Puma's single mode).
      def env(adapter, app)
        return {} unless app.rails_knobs?
        threads = adapter.request_threads
        {"RAILS_MAX_THREADS" => threads&.to_s, "WEB_CONCURRENCY" => adapter.workers.to_s}.compact
      end

      # The command as shown (results, tune's start line): the knobs the
      # server really got, in front, so it runs as printed.
      def shown(argv, env)
        knobs = NAMES.filter_map { |name| env[name] && "#{name}=#{env[name]}" }
        knobs.empty? ? argv : ["env", *knobs, *argv]
      end
    end
  end
end
