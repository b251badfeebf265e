# frozen_string_literal: true

require_relative "../core"
require_relative "../report/answer_section"
require_relative "../report/brief"
require_relative "../report/files"
require_relative "../report/formats"
require_relative "../report/source"
require_relative "../results/tune_answer"
require_relative "base"

module Arena
  module Commands
    # `arena report DIR`: renders a finished (or interrupted) run again:
    # the summary table on the terminal, DIR/report.md, DIR/report.html.
    class Report < Base
      def self.formats = ["terminal", *Arena::Report::Formats.keys]

      def initialize(...)
        super
        @formats = self.class.formats
      end

      def call
        parse
        source = Arena::Report::Source.open(@argv.first)
        source.notes.each { |note| @err.puts "arena: note: #{note}" }
        if @formats.include?("terminal")
          Arena::Report::Brief.new(source.view).summary_lines.each { |line| @out.puts line }
          @out.flush
        end
        files = @formats & Arena::Report::Formats.keys
        written = Arena::Report::Files.new(dir: source.dir, formats: files).write(source.view, notes: source.notes)
        written.each { |path| @err.puts "report: #{path}" }
        # As at the end of `arena run`: the pick last; a tune's directory
        # ends with its answer instead (the search's figures pick nothing).
        @out.puts("", *closing(source)) if @formats.include?("terminal")
        0
      end

      private

      def closing(source)
        answer = Arena::Report::AnswerSection.of(Results::TuneAnswer.read(source.dir))
        return Arena::Report::Brief.new(source.view).pick_lines unless answer
        ["the answer: #{answer.headline}", *answer.facts.first(2).map { |f| "  #{f.name}: #{f.value}" }]
      end

      def parse
        OptionParser.new do |parser|
          parser.banner = "usage: arena report DIR [--format terminal,md,html]"
          parser.on("--format LIST", "what to render (default: terminal,md,html)") do |list|
            @formats = list.split(",").map(&:strip)
            unknown = @formats - self.class.formats
            raise UsageError, "unknown format #{unknown.first.inspect} (#{self.class.formats.join(", ")})" if unknown.any?
          end
        end.parse!(@argv)
        raise UsageError, "usage: arena report DIR (a run directory or its results.json)" unless @argv.size == 1
      end
    end
  end
end
