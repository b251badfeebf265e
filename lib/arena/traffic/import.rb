# frozen_string_literal: true

require_relative "../core"
require_relative "../plan/requests_file"
require_relative "census"
require_relative "entry"
require_relative "formats"
require_relative "log_source"
require_relative "template"

module Arena
  module Traffic
    # `arena traffic import`: a log read into a Census, then the templates
    # that cover the asked share of requests chosen as one weighted mix. The
    # result says what was found, what went in and what was left out, and why.
    class Import
      BODY_METHODS = %w[POST PUT PATCH].freeze
      MAX_SKIPS_LISTED = 10

      # chosen: Found templates in the mix; left_out: [Found, why] for those of
      # the covering set that could not go in; rest: the templates beyond the
      # coverage; skips: the first Skip values, skipped: how many in all.
      Result = Struct.new(:log, :format, :total, :found, :chosen, :left_out, :rest, :skipped, :skips,
        :coverage, :bodies, keyword_init: true)

      def initialize(log:, coverage: 0.95, redact: [], bodies: {}, samples: 20)
        @source = LogSource.new(log)
        @log = log
        @coverage = coverage
        @redact = redact
        @bodies = bodies
        @samples = samples
      end

      def call
        format = Formats.detect(@source.first_lines(200)) or
          raise UsageError, "traffic import: #{@log}: no line is in a format Arena reads " \
            "(nginx/Apache combined or common, a Rails production log, JSON lines)"
        census = Census.new(samples: @samples, redact: @redact)
        skips = []
        skipped = 0
        format.new.each(@source.each_line) do |item|
          next census.add(item) if item.is_a?(Entry)
          skipped += 1
          skips << item if skips.size < MAX_SKIPS_LISTED
        end
        raise UsageError, "traffic import: #{@log}: no request could be read (#{skipped} malformed lines)" if census.total.zero?
        choose(census.found).merge(log: @log, format: format::NAME, total: census.total, found: census.found,
          skipped: skipped, skips: skips.sort_by(&:line), coverage: @coverage, bodies: @bodies).then { |h| Result.new(**h).freeze }
      end

      private

      # The fewest templates, most requested first, whose requests make up the
      # coverage; of those, the ones that cannot be sent are left out by name.
      def choose(found)
        covering = []
        sum = 0.0
        found.each do |f|
          break if sum >= @coverage - 1e-9
          covering << f
          sum += f.share
        end
        left_out = covering.filter_map { |f| (why = unsendable(f)) && [f, why] }
        unused = @bodies.keys - covering.map { |f| key(f) }
        raise UsageError, "traffic import: --body #{unused.first}: no such template among the covered ones (#{covering.map { |f| key(f) }.join(", ")})" unless unused.empty?
        chosen = covering - left_out.map(&:first)
        raise UsageError, "traffic import: #{@log}: every covered request needs a body; give one with --body 'METHOD /template=FILE'" if chosen.empty?
        {chosen: chosen.freeze, left_out: left_out.freeze, rest: (found - covering).freeze}
      end

      def unsendable(found)
        return "method #{found.method} is not one Arena sends (#{Plan::RequestsFile::METHODS.join(", ")})" unless Plan::RequestsFile::METHODS.include?(found.method)
        return nil unless BODY_METHODS.include?(found.method) && !@bodies.key?(key(found))
        "has a body; give one with --body '#{key(found)}=FILE'"
      end

      def key(found) = "#{found.method} #{found.template}"
    end
  end
end
