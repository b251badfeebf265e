# frozen_string_literal: true

require_relative "plan"

module Arena
  class Plan
    # The headers a deployed app's proxy sends. Every app `rails new`
    # generates forces SSL in production (config.force_ssl = true), and every
    # deployment of it has a TLS proxy in front that says so with
    # X-Forwarded-Proto: https; without it each request is a 301 to https.
    # So a Rails app that forces SSL gets the header, said in one line, unless
    # --no-proxy-headers or the user's own --header names it.
    #
    # Read from the app's config/environments/production.rb as text (a line
    # `config.force_ssl = true` that is not a comment): the app's code is
    # never run in Arena's process.
    module ProxyHeaders
      FORWARDED = {"X-Forwarded-Proto" => "https"}.freeze
      FORCE_SSL = /^\s*config\.force_ssl\s*=\s*true\b/

      module_function

      # {headers to add} and the line that says so ({} and nil when none).
      def for(app_dir:, given: {}, off: false)
        return [{}, nil] if off || app_dir.nil? || !forces_ssl?(app_dir)
        return [{}, nil] if given.keys.any? { |k| k.casecmp?("X-Forwarded-Proto") }
        [FORWARDED, "arena: the app forces SSL: sending X-Forwarded-Proto: https, as its proxy would " \
          "(--no-proxy-headers)"]
      end

      def forces_ssl?(app_dir)
        path = File.join(app_dir, "config", "environments", "production.rb")
        File.file?(path) && File.read(path).match?(FORCE_SSL)
      rescue SystemCallError
        false
      end
    end
  end
end
