# frozen_string_literal: true

require_relative "base"

module Arena
  module Commands
    # `arena report DIR`: renders a finished (or interrupted) run again:
    # the summary table on the terminal, DIR/report.md, DIR/report.html.
    class Report < Base
      FORMATS = %w[terminal md html].freeze

      def initialize(...)
        super
        @formats = FORMATS
      end

      def call
        parse
        source = Arena::Report::Source.open(@argv.first)
        source.notes.each { |note| @err.puts "arena: note: #{note}" }
        if @formats.include?("terminal")
          @out.print Arena::Report::Table.new(source.document).render
          Arena::Report::Findings.lines(source.document).each { |line| @out.puts line }
        end
        files = @formats & Arena::Report::Files::FORMATS.keys
        written = Arena::Report::Files.new(dir: source.dir, formats: files).write(source.document, notes: source.notes)
        written.each { |path| @err.puts "report: #{path}" }
        0
      end

      private

      def parse
        OptionParser.new do |parser|
          parser.banner = "usage: arena report DIR [--format terminal,md,html]"
          parser.on("--format LIST", "what to render (default: terminal,md,html)") do |list|
            @formats = list.split(",").map(&:strip)
            unknown = @formats - FORMATS
            raise UsageError, "unknown format #{unknown.first.inspect} (#{FORMATS.join(", ")})" if unknown.any?
          end
        end.parse!(@argv)
        raise UsageError, "usage: arena report DIR (a run directory or its results.json)" unless @argv.size == 1
      end
    end
  end
end
