# frozen_string_literal: true

require "fileutils"
require_relative "../results/tune_answer"
require_relative "formats"

module Arena
  module Report
    # The report files of a run directory, one per registered format
    # (Report::Formats: report.md, report.html). As a reporter (the protocol
    # in runner.rb) it writes them when the run ends, interrupted or not;
    # `arena report` calls `write` directly.
    class Files
      def initialize(dir:, formats: Formats.keys, err: $stderr)
        @dir = dir
        @formats = formats
        @err = err
      end

      def planned(_plan, _total) = nil

      def server_started(_record) = nil

      def server_failed(_label, _message, _log_tail) = nil

      def measured(_record) = nil

      def timed(_key, _round, _words) = nil

      def finished(document, interrupted:)
        notes = (interrupted ? ["the run was interrupted: these are the measurements made before it stopped"] : []) | document.notes
        write(document, notes: notes).each { |path| @err.puts "report: #{path}" }
      end

      # Returns the paths written. answer: the lines of `arena tune`'s
      # answer, first in each report.
      # A tune's directory holds tune.json: its answer record leads each
      # report (Results::TuneAnswer).
      def write(document, notes: [], answer: [])
        FileUtils.mkdir_p(@dir)
        tune_answer = Results::TuneAnswer.read(@dir)
        @formats.map do |key|
          format = Formats.fetch(key)
          path = File.join(@dir, format.description)
          File.write(path, format.new(document, notes: notes, answer: answer, tune_answer: tune_answer).render)
          path
        end
      end
    end

    # Hands every reporter event to several reporters in turn (the terminal
    # and the files), as benchmark-ips's MultiReport does.
    class Fanout
      EVENTS = %i[planned server_started server_failed measured timed finished].freeze

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
