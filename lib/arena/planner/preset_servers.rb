# frozen_string_literal: true

require_relative "../servers/base"
require_relative "server_list"

module Arena
  module Planner
    # A preset's servers as a plan runs them (--preset).
    module PresetServers
      module_function

      # The preset's servers that can run here, and one note for each that
      # cannot: the adapter's own installation reason, or why Arena has none.
      # specs: the servers asked for (--servers), else the preset's own.
      def call(preset, app:, machine:, specs: preset.servers)
        notes = []
        adapters = specs.filter_map do |spec|
          name = spec.split(":", 2).first
          unless Servers.registry.key?(name)
            notes << "#{name}: skipped, #{preset.unavailable.fetch(name, "Arena has no adapter for it")}"
            next
          end
          adapter = Planner::ServerList.parse([spec], machine: machine).first
          installation = adapter.class.install(app)
          if !installation.found
            notes << "#{adapter.label}: skipped, not installed (#{installation.why})"
          elsif preset.app_gem && adapter.env(app: app).key?("BUNDLE_GEMFILE") && adapter.env(app: app)["BUNDLE_GEMFILE"].nil?
            # An adapter that clears BUNDLE_GEMFILE runs outside the app's
            # bundle (Puma on JRuby, from JRuby's own gems), so the app's gems
            # are not there for it.
            notes << "#{adapter.label}: skipped, it runs outside the app's bundle, where #{preset.app_gem} is not installed"
          else
            next adapter
          end
          nil
        end
        [adapters, notes]
      end
    end
  end
end
