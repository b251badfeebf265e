# frozen_string_literal: true

require_relative "base"

module Arena
  module Commands
    # `arena servers`: every adapter, installed or not, version and source.
    class Servers < Base
      def call
        app_path = nil
        OptionParser.new do |parser|
          parser.banner = "usage: arena servers [--app PATH/config.ru]"
          parser.on("--app PATH") { |v| app_path = v }
        end.parse!(@argv)
        app = app_path ? AppSource.user(app_path) : AppSource.builtin
        rows = Arena::Servers.all.sort_by(&:key).map do |klass|
          i = klass.install(app)
          [klass.key, i.found ? "yes" : "no", i.version || "-", i.found ? i.source : i.why, klass.description]
        end
        @out.puts ::Terminal::Table.new(headings: %w[server installed version source/why model], rows: rows)
        0
      end
    end
  end
end
