# frozen_string_literal: true

require "json"
require_relative "entry"

module Arena
  module Traffic
    # The log formats `arena traffic import` reads. Each reader takes the
    # lines with their numbers and yields an Entry or a Skip per request line;
    # lines that are no request (a Rails log's "Processing by") are neither.
    module Formats
      METHOD = /\A[A-Z]{3,10}\z/

      # Where a log says a full URL (a proxy's absolute-form request), the
      # path and query are what an app sees.
      def self.target_of(raw)
        target = raw.to_s.sub(%r{\Ahttps?://[^/?#]*}i, "")
        target = "/#{target}" if target.start_with?("?")
        target.empty? ? "/" : target
      end

      # A format of one request a line: each non-blank line is an Entry or a
      # Skip (the including class says which, in `entry(line, number)`).
      module OneRequestALine
        def each(lines)
          lines.each do |line, number|
            next if line.strip.empty?
            yield entry(line, number)
          end
        end
      end

      # nginx "combined" and Apache "common" and "combined": the same first
      # seven fields, the referer and agent after them or not.
      class Access
        include OneRequestALine

        NAME = "nginx/Apache access log"
        LINE = /\A\S+ \S+ .*?\[[^\]]+\] "(?<request>[^"]*)" (?<status>\d{3}) (?:\d+|-)/

        def self.match?(line) = LINE.match?(line)

        private

        def entry(line, number)
          m = LINE.match(line) or return Skip.new(line: number, why: "not an access-log line")
          method, raw, = m[:request].split(" ", 3)
          unless method && raw && METHOD.match?(method)
            return Skip.new(line: number, why: "no request line (#{m[:request][0, 30].inspect})")
          end
          Entry.new(method: method, target: Formats.target_of(raw), status: m[:status].to_i, line: number)
        end
      end

      # One JSON object a line (lograge, a JSON nginx log_format): the method,
      # the path and the status under the names such logs use.
      class JsonLines
        include OneRequestALine

        NAME = "JSON lines"
        METHOD_KEYS = %w[method request_method verb http_method].freeze
        PATH_KEYS = %w[path request_uri uri url fullpath].freeze
        STATUS_KEYS = %w[status status_code response_status].freeze

        def self.match?(line) = line.lstrip.start_with?("{")

        private

        def entry(line, number)
          data = JSON.parse(line)
          return Skip.new(line: number, why: "not a JSON object") unless data.is_a?(Hash)
          method, target = request_of(data)
          status = Integer(STATUS_KEYS.filter_map { |k| data[k] }.first.to_s, exception: false)
          return Skip.new(line: number, why: "no method and path") unless method && target && METHOD.match?(method)
          return Skip.new(line: number, why: "no status") unless status&.between?(100, 599)
          Entry.new(method: method, target: Formats.target_of(target), status: status, line: number)
        rescue JSON::ParserError
          Skip.new(line: number, why: "not valid JSON")
        end

        def request_of(data)
          method = METHOD_KEYS.filter_map { |k| data[k] }.first&.to_s&.upcase
          target = PATH_KEYS.filter_map { |k| data[k] }.first&.to_s
          if (!method || !target) && data["request"].is_a?(String) # nginx's $request
            method, target, = data["request"].split(" ", 3)
          end
          [method, target]
        end
      end

      # A Rails production log: `Started GET "/items/7" for ...` then, later
      # and perhaps after other requests' lines, `Completed 200 OK in 3ms`.
      # A Started is paired with its Completed by the request-id tag Rails
      # writes by default, else by the process id in Logger's prefix.
      class Rails
        NAME = "Rails production log"
        STARTED = /(?<tag>\[[0-9A-Za-z-]{8,}\] )?Started (?<method>[A-Z]+) "(?<target>[^"]*)" for /
        COMPLETED = /(?<tag>\[[0-9A-Za-z-]{8,}\] )?Completed (?<status>\d{3}) /
        # A path no route matches never reaches a controller, so no Completed
        # line: the router's error says the 404.
        NO_ROUTE = /(?<tag>\[[0-9A-Za-z-]{8,}\] )?ActionController::RoutingError \(/
        PID = /#(\d+)\]/

        def self.match?(line) = STARTED.match?(line)

        def each(lines)
          open = {}
          lines.each do |line, number|
            if (m = STARTED.match(line))
              key = key_of(m, line)
              yield Skip.new(line: open[key].last, why: "Started with no Completed") if open[key]
              open[key] = [m[:method], m[:target], number]
            elsif (m = COMPLETED.match(line) || NO_ROUTE.match(line))
              method, target, started = open.delete(key_of(m, line))
              next yield(Skip.new(line: number, why: "Completed with no Started")) unless started
              status = m.names.include?("status") ? m[:status].to_i : 404
              yield Entry.new(method: method, target: Formats.target_of(target), status: status, line: started)
            end
          end
          open.each_value { |(_, _, started)| yield Skip.new(line: started, why: "Started with no Completed") }
        end

        private

        def key_of(match, line) = match[:tag] || line[PID, 1] || :one
      end

      ALL = [JsonLines, Rails, Access].freeze

      # The format of a log, from its first lines: a Rails log is known by any
      # Started line among them (its other lines are not requests); the
      # others by the most lines that match.
      def self.detect(lines)
        return Rails if lines.any? { |l| Rails.match?(l) }
        best = [JsonLines, Access].max_by { |f| lines.count { |l| f.match?(l) } }
        (lines.any? { |l| best.match?(l) }) ? best : nil
      end
    end
  end
end
