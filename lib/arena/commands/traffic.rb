# frozen_string_literal: true

require_relative "base"
require_relative "../traffic"

module Arena
  module Commands
    # `arena traffic import LOG`: a requests file from a production log.
    class Traffic < Base
      USAGE = "usage: arena traffic import LOG [-o requests.yml] [--coverage 95] [--redact KEY] " \
        "[--body 'POST /items=FILE'] [--samples 20]"

      def call
        sub = @argv.shift
        raise UsageError, USAGE unless sub == "import"
        @out_path = "requests.yml"
        @coverage = 0.95
        @redact = []
        @bodies = {}
        @samples = 20
        options.parse!(@argv)
        raise UsageError, USAGE unless @argv.size == 1
        raise UsageError, "traffic import: #{@out_path} exists; Arena does not overwrite a file (-o another)" if File.exist?(@out_path)
        result = Arena::Traffic::Import.new(log: @argv.first, coverage: @coverage, redact: @redact,
          bodies: @bodies, samples: @samples).call
        writer = Arena::Traffic::RequestsWriter.new(result)
        File.write(@out_path, writer.render)
        summary(result, writer)
        0
      end

      private

      def options
        OptionParser.new do |parser|
          parser.banner = USAGE
          parser.on("-o", "--out FILE", "the requests file to write (default requests.yml; never overwritten)") { |v| @out_path = v }
          parser.on("--coverage PCT", Float, "the top templates covering PCT% of requests become the mix (default 95)") do |pct|
            raise UsageError, "--coverage must be above 0 and at most 100" unless pct.positive? && pct <= 100
            @coverage = pct / 100.0
          end
          parser.on("--redact KEY", "drop this query key's values from the sampled paths (repeatable, or KEY,KEY)") do |keys|
            @redact.concat(keys.split(",").map(&:strip).reject(&:empty?))
          end
          parser.on("--body SPEC", "'METHOD /template=FILE': the body sent with that template's requests") { |spec| body(spec) }
          parser.on("--samples N", Integer, "real paths kept per template (default 20)") do |n|
            raise UsageError, "--samples must be from 1 to 1000" unless n.between?(1, 1000)
            @samples = n
          end
        end
      end

      def body(spec)
        m = /\A(?<key>[A-Z]+ \/\S*)=(?<file>.+)\z/.match(spec) or
          raise UsageError, "--body #{spec.inspect}: expected 'METHOD /template=FILE', such as 'POST /items/:id=item.json'"
        raise UsageError, "--body #{m[:key]}: no such file: #{m[:file]}" unless File.file?(m[:file])
        @bodies[m[:key]] = m[:file]
        raise UsageError, "--body: the engine sends one body for a whole mix; give one body file" if @bodies.values.uniq.size > 1
      end

      def summary(result, writer)
        @out.puts "read #{result.log} (#{result.format}): #{result.total} requests, #{result.found.size} templates"
        unless result.skipped.zero?
          lines = result.skips.map { |s| "#{s.line} (#{s.why})" }.join(", ")
          more = (result.skipped > result.skips.size) ? ", ..." : ""
          @out.puts "skipped #{result.skipped} malformed line#{"s" unless result.skipped == 1}: #{lines}#{more}"
        end
        covered = result.chosen.sum(&:share) * 100
        @out.puts "in the mix: #{result.chosen.size} templates, #{pct(covered)} of requests (--coverage #{pct(result.coverage * 100)})"
        result.chosen.each { |f| @out.puts row(f, "weight #{writer.weight(f)}, expect #{f.status}, #{f.samples.uniq.size} sampled paths") }
        result.left_out.each { |f, why| @out.puts "left out: #{row(f, why).strip}" }
        unless result.rest.empty?
          top = result.rest.first(3).map { |f| "#{f.method} #{f.template} #{pct(f.share * 100)}" }.join(", ")
          @out.puts "left out beyond the coverage: #{result.rest.size} template#{"s" unless result.rest.size == 1}, #{pct(result.rest.sum(&:share) * 100)} of requests (#{top}#{", ..." if result.rest.size > 3})"
        end
        @out.puts "wrote #{@out_path} (mix #{Arena::Traffic::RequestsWriter::MIX.inspect}): arena run --app DIR --requests #{@out_path}"
      end

      def row(f, detail) = format("  %6s  %-7s %-40s %s", pct(f.share * 100), f.method, f.template, detail)

      def pct(value) = format("%.1f%%", value)
    end
  end
end
