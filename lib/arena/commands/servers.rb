# frozen_string_literal: true

require_relative "../bundle/app_source"
require_relative "../core"
require_relative "../servers/base"
require_relative "base"

module Arena
  module Commands
    # `arena servers`: every adapter, installed or not, version and source.
    # For a user's app (--app, or the app in the working directory) the
    # source says where each server would come from: the app's own bundle,
    # Arena's overlay beside it, the system, or why it cannot be added.
    class Servers < Base
      def call
        app_path = nil
        only_app_bundle = false
        OptionParser.new do |parser|
          parser.banner = "usage: arena servers [--app DIR|config.ru] [--only-app-bundle]"
          parser.on("--app PATH", "an app directory or its config.ru (default: the app in this directory, else the built-in one)") { |v| app_path = v }
          parser.on("--only-app-bundle", "only what the app's own bundle has (no overlay bundle)") { only_app_bundle = true }
        end.parse!(@argv)
        raise UsageError, "unexpected argument #{@argv.first.inspect}" unless @argv.empty?
        app = Bundle::AppSource.for_run(app_path, overlay: !only_app_bundle, say: ->(line) { @err.puts line })
        rows = Arena::Servers.all.sort_by(&:key).map do |klass|
          i = klass.install(app)
          [klass.key, i.found ? "yes" : "no", i.version || "-", source(app, klass, i), klass.description]
        end
        @out.puts ::Terminal::Table.new(headings: %w[server installed version source/why model], rows: rows)
        0
      end

      private

      def source(app, klass, installation)
        entry = app.overlay&.entry(klass.key)
        # The overlay's reason when it tried to add the server; else the
        # installation's own (a system program that is missing says why).
        return (%i[cannot unfetched].include?(entry&.state) ? entry.describe : installation.why) unless installation.found
        case installation.source
        when "overlay" then "added by Arena (overlay bundle)"
        when "bundle" then app.builtin ? "bundle" : "in the app's bundle"
        else installation.source
        end
      end
    end
  end
end
