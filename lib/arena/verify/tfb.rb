# frozen_string_literal: true

require "json"
require "time"
require "cgi"
require_relative "../plan/workloads"

module Arena
  class Verify
    # TechEmpower's test rules (their "Framework Tests" page) as Arena's
    # verification of the tfb-rack preset: each test type is a workload whose
    # pre-flight checks the headers (Server, Date, Content-Type, Content-Length
    # or chunked), the body's shape, the World rows' ranges, the fortunes
    # (all twelve, one added at request time, sorted, escaped) and the clamping
    # of `queries` (0 and "foo" are 1, 501 is 500, missing is 1). Under load the
    # engine checks the status and a body substring of each response.
    module Tfb
      WORLD_IDS = (1..10_000)
      EXTRA_FORTUNE = [0, "Additional fortune added at request time."].freeze
      # The Fortune table as arena-db.sql seeds it (id, message).
      FORTUNES = [
        [1, "fortune: No such file or directory"],
        [2, "A computer scientist is someone who fixes things that aren't broken."],
        [3, "After enough decimal places, nobody gives a damn."],
        [4, "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"],
        [5, "A computer program does what you tell it to do, not what you want it to do."],
        [6, "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen"],
        [7, "Any program that runs right is obsolete."],
        [8, "A list is only as strong as its weakest link. — Donald Knuth"],
        [9, "Feature: A bug with seniority."],
        [10, "Computers make very fast, very accurate mistakes."],
        [11, "<script>alert(\"This should not be displayed in a browser alert box.\");</script>"],
        [12, "フレームワークのベンチマーク"]
      ].freeze
      QUERIES = 20 # the highest count TechEmpower loads queries and updates with
      PIPELINE = 16 # plaintext's requests in flight per connection in TechEmpower's runs

      module_function

      # The six test types, each a Workload with its rules.
      def workloads
        @workloads ||= [
          workload("json", "/json", %r{\Aapplication/json}, "Hello, World!") { |b| json_rule(b) },
          workload("plaintext", "/plaintext", %r{\Atext/plain}, "Hello, World!", pipeline: PIPELINE) { |b| (b == "Hello, World!") ? nil : "body is #{b[0, 40].inspect}, not \"Hello, World!\"" },
          workload("db", "/db", %r{\Aapplication/json}, "randomNumber") { |b| db_rule(b) },
          workload("queries", "/queries?queries=#{QUERIES}", %r{\Aapplication/json}, "randomNumber",
            checks: clamp_checks("queries", "/queries")) { |b| worlds_rule(b, QUERIES) },
          workload("fortunes", "/fortunes", %r{\Atext/html}, EXTRA_FORTUNE.last) { |b| fortunes_rule(b) },
          workload("updates", "/updates?queries=#{QUERIES}", %r{\Aapplication/json}, "randomNumber",
            checks: clamp_checks("updates", "/updates")) { |b| worlds_rule(b, QUERIES) }
        ].freeze
      end

      def workload(name, path, type, substring, checks: nil, pipeline: nil, &rule)
        Plan::Workload.new(name: name, path: path, method: "GET", content_type: type, expect_status: 200, expect_body: substring,
          body_rule: ->(body, _bind) { rule.call(body) }, header_rule: ->(r) { headers_rule(r) }, checks: checks,
          pipeline: pipeline).freeze
      end

      # What the rules say a `queries` value becomes: verified before load only.
      def clamp_checks(name, base)
        {"0" => 1, "foo" => 1, "501" => 500, nil => 1}.map do |given, count|
          path = given ? "#{base}?queries=#{given}" : base
          Plan::Workload.new(name: "#{name}(#{given.inspect} is #{count})", path: path, method: "GET", content_type: %r{\Aapplication/json},
            expect_status: 200, body_rule: ->(body, _bind) { worlds_rule(body, count) }, header_rule: ->(r) { headers_rule(r) }).freeze
        end.freeze
      end

      # Server and Date on every response; Date an HTTP date.
      def headers_rule(response)
        problems = []
        problems << "no Server header" if response["server"].to_s.strip.empty?
        date = response["date"].to_s
        if date.empty?
          problems << "no Date header"
        else
          begin
            Time.httpdate(date[/\A[^,]+,[^,]+/].to_s.strip)
          rescue ArgumentError
            problems << "Date #{date.inspect} is not an HTTP date"
          end
        end
        problems << "gzip is not allowed" if response["content-encoding"].to_s.include?("gzip")
        problems.empty? ? nil : problems.join("; ")
      end

      def json_rule(body)
        value = parse(body)
        return value if value.is_a?(String)
        (value.first == {"message" => "Hello, World!"}) ? nil : "JSON is #{body[0, 60].inspect}, not {\"message\":\"Hello, World!\"}"
      end

      def db_rule(body)
        value = parse(body)
        return value if value.is_a?(String)
        world_problem(value.first)
      end

      # An array of exactly `count` World objects.
      def worlds_rule(body, count)
        value = parse(body)
        return value if value.is_a?(String)
        list = value.first
        return "expected a JSON array of #{count} World objects, got #{body[0, 60].inspect}" unless list.is_a?(Array)
        return "expected #{count} World objects, got #{list.size}" unless list.size == count
        list.each_with_index { |world, i| (problem = world_problem(world)) and return "item #{i}: #{problem}" }
        nil
      end

      # {"id": 1..10000, "randomNumber": 1..10000}, keys exactly so (case matters).
      def world_problem(world)
        return "expected a World object, got #{world.inspect[0, 60]}" unless world.is_a?(Hash)
        return "keys are #{world.keys.inspect}, expected [\"id\", \"randomNumber\"]" unless world.keys.sort == %w[id randomNumber]
        %w[id randomNumber].each do |key|
          value = world[key]
          return "#{key} #{value.inspect} is not an integer in 1..10000" unless value.is_a?(Integer) && WORLD_IDS.cover?(value)
        end
        nil
      end

      # Every seeded fortune and the one added at request time, sorted by
      # message, each escaped (no raw <script>), in an HTML table.
      def fortunes_rule(body)
        return "the <script> fortune is not escaped" if body.include?("<script>")
        text = body.dup.force_encoding(Encoding::UTF_8)
        return "body is not UTF-8" unless text.valid_encoding?
        rows = text.scan(%r{<tr>\s*<td>\s*(\d+)\s*</td>\s*<td>(.*?)</td>\s*</tr>}m).map { |id, msg| [id.to_i, CGI.unescapeHTML(msg)] }
        expected = (FORTUNES + [EXTRA_FORTUNE]).sort_by(&:last)
        return nil if rows == expected
        return "#{rows.size} fortune rows, expected #{expected.size}" unless rows.size == expected.size
        return "fortunes are not sorted by message" if rows.sort_by(&:last) == expected
        wrong = rows.zip(expected).find { |got, want| got != want }
        "fortune #{wrong.first.inspect} where #{wrong.last.inspect} was expected"
      end

      # [value] when the body is JSON, else the problem.
      def parse(body)
        [JSON.parse(body)]
      rescue JSON::ParserError
        "body is not JSON: #{body[0, 60].inspect}"
      end
    end
  end
end
