# frozen_string_literal: true

require "json"

module Arena
  class Plan
    # What `arena tune` loads when it is not told: run as a script inside the
    # app's own bundle (`bundle exec ruby discovery_probe.rb config.ru`), in a
    # process of its own, never in Arena's. It boots the app once, as a
    # server would, lists a Rails app's GET routes (Rails.application.routes,
    # what `bin/rails routes` prints), and asks the app itself, in process,
    # with Rack::MockRequest-like environments: no port, no server, GET only.
    # A route with one parameter is filled with an id the app's own index
    # returned (`/items/:id` from the first "id" of `/items`), never guessed.
    #
    # Prints one JSON document on stdout: {"rails":, "answers": [{"path",
    # "status", "type", "bytes", "route", "why"}...]}. Arena reads nothing
    # else of this process; its stdout is kept clean of the app's logging
    # (Rails logs to STDOUT in production) by pointing fd 1 at stderr.
    module DiscoveryProbe
      # Paths of Rails' own (health check, Active Storage, Action Mailbox,
      # Turbo's, the asset server): not the app's traffic.
      INTERNAL = %r{\A/(rails/|assets|cable|recede_|resume_|refresh_|up\z)}
      HEALTH = %w[rails/health#show].freeze
      MAX_PARAMETERLESS = 8
      READ_BYTES = 262_144

      module_function

      # argv: [rackup, headers as JSON]
      def main(argv, out: $stdout)
        rackup, headers = argv
        # The app's logging goes to stderr, fd 1 included: Rails' production
        # logger writes to STDOUT, the constant, not $stdout.
        real = out.dup
        out.reopen($stderr)
        $stdout = $stderr
        app = boot(rackup)
        doc = answers(app, headers: JSON.parse(headers || "{}"))
        real.write(JSON.generate(doc))
        real.flush
      end

      def boot(rackup)
        require "rack"
        built = Dir.chdir(File.dirname(File.expand_path(rackup))) { Rack::Builder.parse_file(File.expand_path(rackup)) }
        # Rack 2 returns [app, options], Rack 3 the app.
        built.is_a?(Array) ? built.first : built
      end

      def answers(app, headers:)
        routes = rails_routes
        paths = ["/"] + routes.select { |r| r[:params].empty? && !r[:internal] }.map { |r| r[:path] }
        paths = paths.uniq.first(MAX_PARAMETERLESS + 1)
        out = paths.map { |path| ask(app, path, headers).merge("route" => routes.find { |r| r[:path] == path }&.dig(:name)) }
        routes.select { |r| r[:params].size == 1 && !r[:internal] }.each do |r|
          filled = fill(r, out)
          out << (filled ? ask(app, filled[:path], headers).merge("route" => r[:name], "from" => filled[:from]) : nil)
        end
        out.compact!
        {"rails" => !routes.empty?, "answers" => out}
      end

      # A Rails app's GET routes: [{path:, params:, name:, internal:}], none
      # for an app that is not Rails.
      def rails_routes
        return [] unless defined?(::Rails) && ::Rails.respond_to?(:application) && ::Rails.application
        ::Rails.application.routes.routes.filter_map do |route|
          verb = route.verb.to_s
          next unless verb.empty? || verb.match?(/\bGET\b/)
          spec = route.path.spec.to_s
          path = spec.gsub(/\([^()]*\)/, "") # optional parts, "(.:format)", left out
          next if path.include?("*") || path.empty?
          name = "#{route.defaults[:controller]}##{route.defaults[:action]}"
          {path: path, params: path.scan(/:(\w+)/).flatten, name: name,
           internal: path.match?(INTERNAL) || (route.respond_to?(:internal) && route.internal) || HEALTH.include?(name)}
        end.uniq { |r| r[:path] }
      rescue => e
        warn "routes: #{e.class}: #{e.message}"
        []
      end

      # /items/:id from the first id its index (/items) answered with; nil
      # when no index answered JSON with ids.
      def fill(route, answered)
        param = route[:params].first
        index = route[:path].sub(%r{/:#{param}\z}, "")
        return nil if index == route[:path] || index.include?(":")
        source = answered.find { |a| a["path"] == index && a["status"].to_i.between?(200, 299) && a["ids"] }
        id = source && source["ids"].first
        id && {path: route[:path].sub(":#{param}", id.to_s), from: index}
      end

      def ask(app, path, headers)
        env = environment(path, headers)
        status, response_headers, body = app.call(env)
        text = read(body)
        type = response_headers.to_h.find { |k, _| k.to_s.casecmp?("content-type") }&.last.to_s
        {"path" => path, "status" => status.to_i, "type" => type, "bytes" => text.bytesize, "ids" => ids(text, type),
         "location" => response_headers.to_h.find { |k, _| k.to_s.casecmp?("location") }&.last}.compact
      rescue Exception => e # rubocop:disable Lint/RescueException -- an app's error is an answer: the next path is asked
        {"path" => path, "status" => 0, "why" => "#{e.class}: #{e.message}"[0, 200]}
      end

      def read(body)
        text = +""
        body.each do |chunk|
          text << chunk.to_s
          break if text.bytesize > READ_BYTES
        end
        text
      ensure
        body.close if body.respond_to?(:close)
      end

      # The ids of a JSON index: an array of objects with "id", or an object
      # holding one such array.
      def ids(text, type)
        return nil unless type.include?("json")
        doc = JSON.parse(text)
        list = if doc.is_a?(Array)
          doc
        else
          (doc.is_a?(Hash) ? doc.values.find { |v| v.is_a?(Array) } : nil)
        end
        found = list&.filter_map { |item| item["id"] if item.is_a?(Hash) && [Integer, String].include?(item["id"].class) }
        (found.nil? || found.empty?) ? nil : found.first(3)
      rescue JSON::ParserError
        nil
      end

      # A GET from loopback, as a server would build it (Rack's SPEC).
      def environment(path, headers)
        require "stringio"
        base, query = path.split("?", 2)
        env = {"REQUEST_METHOD" => "GET", "SCRIPT_NAME" => "", "PATH_INFO" => base, "QUERY_STRING" => query.to_s,
               "SERVER_NAME" => "127.0.0.1", "SERVER_PORT" => "80", "SERVER_PROTOCOL" => "HTTP/1.1", "HTTP_HOST" => "127.0.0.1",
               "REMOTE_ADDR" => "127.0.0.1", "rack.url_scheme" => "http", "rack.input" => StringIO.new(+""),
               "rack.errors" => $stderr, "rack.multithread" => true, "rack.multiprocess" => false, "rack.run_once" => false,
               "rack.version" => [1, 3], "rack.hijack?" => false, "HTTP_VERSION" => "HTTP/1.1"}
        headers.each { |name, value| env["HTTP_#{name.upcase.tr("-", "_")}"] = value }
        env
      end
    end
  end
end

Arena::Plan::DiscoveryProbe.main(ARGV) if $PROGRAM_NAME == __FILE__
