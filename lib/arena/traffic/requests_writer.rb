# frozen_string_literal: true

require "json"

module Arena
  module Traffic
    # Writes an Import's chosen templates as a requests file (the --requests
    # format): one request per template, with its sampled real paths, in one
    # mix weighted by share. Written by hand rather than by YAML.dump so that
    # each request carries a comment saying its template and share.
    class RequestsWriter
      MIX = "imported"

      def initialize(result)
        @result = result
      end

      def names
        @names ||= @result.chosen.each_with_object({}) do |f, taken|
          base = "#{f.method.downcase}_#{f.template.gsub(/=:\w+/, "").gsub(/[^A-Za-z0-9]+/, "_")}".squeeze("_").sub(/_\z/, "")
          name = base
          name = "#{base}_#{taken.size}" while taken.value?(name)
          taken[f] = name
        end
      end

      # Its share of all requests read, in hundredths of a percent (at least 1).
      def weight(found) = [(found.share * 10_000).round, 1].max

      def render
        lines = header
        lines << "requests:"
        @result.chosen.each { |f| lines.concat(request(f)) }
        lines << "mixes:"
        lines << "  #{MIX}:"
        @result.chosen.each { |f| lines << "    #{names[f]}: #{weight(f)}" }
        lines << "workloads: [#{MIX}]"
        lines.join("\n") << "\n"
      end

      private

      def header
        covered = @result.chosen.sum(&:share) * 100
        ["# Written by `arena traffic import` from #{File.basename(@result.log)} (#{@result.format}): " \
          "#{@result.total} requests, #{@result.found.size} templates.",
          "# The mix below is #{@result.chosen.size} of them, #{format("%.1f", covered)}% of the requests. A weight is a share",
          "# of all requests in hundredths of a percent; paths: are real paths sampled from the log,",
          "# sent in turn with the request's weight shared between them.",
          "# Run it: arena run --app DIR --requests THIS_FILE"]
      end

      def request(f)
        out = ["  #{names[f]}:  # #{f.method} #{f.template}: #{format("%.2f", f.share * 100)}% of requests#{statuses(f)}",
          "    method: #{f.method}",
          "    path: #{q(f.samples.first)}"]
        out << "    paths: [#{f.samples.map { |s| q(s) }.join(", ")}]" if f.samples.uniq.size > 1
        out << "    expect_status: #{f.status}"
        out << "    body_file: #{q(File.expand_path(@result.bodies[key(f)]))}" if @result.bodies.key?(key(f))
        out
      end

      def statuses(f)
        return "" if f.statuses.size == 1
        ", statuses #{f.statuses.map { |s, n| "#{s}: #{n}" }.join(", ")}"
      end

      def key(f) = "#{f.method} #{f.template}"

      # A JSON string is a YAML double-quoted scalar.
      def q(text) = JSON.generate(text)
    end
  end
end
