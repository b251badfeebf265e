# frozen_string_literal: true

require "fileutils"

module Arena
  module Report
    # The report files of a run directory: report.md and report.html. As a
    # reporter (the protocol in runner.rb) it writes them when the run ends,
    # interrupted or not; `arena report` calls `write` directly.
    class Files
      FORMATS = {"md" => "report.md", "html" => "report.html"}.freeze

      def initialize(dir:, formats: FORMATS.keys, err: $stderr)
        @dir = dir
        @formats = formats
        @err = err
      end

      def planned(_plan, _total) = nil

      def server_started(_record) = nil

      def server_failed(_label, _message, _log_tail) = nil

      def measured(_record) = nil

      def finished(document, interrupted:)
        notes = interrupted ? ["the run was interrupted: these are the measurements made before it stopped"] : []
        write(document, notes: notes).each { |path| @err.puts "report: #{path}" }
      end

      # Returns the paths written.
      def write(document, notes: [])
        FileUtils.mkdir_p(@dir)
        @formats.map do |format|
          path = File.join(@dir, FORMATS.fetch(format))
          File.write(path, render(format, document, notes))
          path
        end
      end

      private

      def render(format, document, notes)
        case format
        when "md" then Markdown.new(document, notes: notes).render
        when "html" then Html.new(document, notes: notes).render
        end
      end
    end

    # Hands every reporter event to several reporters in turn (the terminal
    # and the files), as benchmark-ips's MultiReport does.
    class Fanout
      EVENTS = %i[planned server_started server_failed measured finished].freeze

      def initialize(*reporters)
        @reporters = reporters
      end

      EVENTS.each do |event|
        define_method(event) do |*args, **kwargs|
          @reporters.each { |r| r.public_send(event, *args, **kwargs) }
          nil
        end
      end
    end
  end
end
