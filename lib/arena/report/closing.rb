# frozen_string_literal: true

require_relative "recommend"

module Arena
  module Report
    # The last thing a run prints: the pick for each use case (Recommend),
    # with the figures behind it, then in one short list the use cases this
    # run did not measure and the command that would. Pure: document in,
    # text out; `write(io)` puts it on whatever stream the command ends on.
    class Closing
      WIDTH = 116
      INDENT = "    "

      def initialize(document)
        @document = document
      end

      def write(io)
        io.print render
        io.flush
      end

      def render
        all = Recommend.new(@document).call
        unmeasured, judged = all.partition { |r| r.pick.nil? && r.because.start_with?("not measured") }
        lines = ["", "Recommendations (from this run's figures only; report.md and report.html have them too):"]
        judged.each do |r|
          lines << "  #{r.use_case}: #{r.pick || "no pick"}"
          lines.concat(Closing.wrap(r.because, indent: INDENT))
          lines.concat(Closing.wrap("then: #{r.run}", indent: INDENT)) if r.run
        end
        unless unmeasured.empty?
          lines << "  Not measured in this run:"
          unmeasured.each { |r| lines.concat(Closing.wrap("#{r.use_case}: #{r.run || r.because}", indent: INDENT)) }
        end
        "#{lines.join("\n")}\n"
      end

      # Words filled into lines of at most WIDTH, each after `indent`; a word
      # longer than a line (a command) stands alone rather than being cut.
      def self.wrap(text, indent:, width: WIDTH)
        text.split(/ +/).each_with_object([]) do |word, lines|
          if lines.empty? || lines.last.size + 1 + word.size > width
            lines << "#{indent}#{word}"
          else
            lines.last << " #{word}"
          end
        end
      end
    end
  end
end
