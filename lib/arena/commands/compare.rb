# frozen_string_literal: true

require_relative "base"

module Arena
  module Commands
    # `arena compare A B`: what changed between two runs, and whether the
    # change is larger than the runs' own noise.
    class Compare < Base
      def initialize(...)
        super
        @noise = Arena::Report::Compare::DEFAULT_NOISE
      end

      def call
        OptionParser.new do |parser|
          parser.banner = "usage: arena compare A B (two run directories or results files)"
          parser.on("--noise PCT", Float, "band used where neither run has repeats (default 5)") { |pct| @noise = pct / 100.0 }
        end.parse!(@argv)
        raise UsageError, "usage: arena compare A B (two run directories or results files)" unless @argv.size == 2
        a, b = @argv.map { |target| Arena::Report::Source.open(target) }
        [a, b].each { |s| s.notes.each { |note| @err.puts "arena: note: #{note}" } }
        @out.puts "A: #{a.path}", "B: #{b.path}"
        @out.print Arena::Report::Compare.new(a.document, b.document, default_noise: @noise).render
        0
      end
    end
  end
end
