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
    #
    # It asks "/" and the routes without parameters first (an index action
    # before other actions, a short path before a long one), then the routes
    # with one parameter, each filled with a value the app itself gave: an
    # "id" of its index's JSON (`/items/:id` from `/items`), or a link of a
    # page it answered (`href="/issues/12"` for `/issues/:id`), never guessed.
    # An app without Rails' routes is asked "/" and the pages it links to.
    # It asks at most MAX_LISTS and MAX_SHOWS paths, for at most ASK_SECONDS.
    #
    # Prints JSON lines on stdout: {"booted": true, "rails":, "routes": N}
    # once the app booted; {"answer": {"path", "status", "type", "bytes",
    # "route", "from", "ids", "location", "why"}} a path asked; then
    # {"done": true, "seconds":} or, when the probe itself fails, {"error":}.
    # An app that does not boot: {"boot_error":}, and the probe fails.
    # Arena reads nothing else of this process; its stdout is kept clean of
    # the app's logging (Rails logs to STDOUT in production) by pointing fd 1
    # at stderr.
    module DiscoveryProbe
      # Paths of Rails' own (health check, Active Storage, Action Mailbox,
      # Turbo's, the asset server): not the app's traffic.
      INTERNAL = %r{\A/(rails/|assets|packs|cable|recede_|resume_|refresh_|up\z)}
      HEALTH = %w[rails/health#show].freeze
      MAX_LISTS = 24
      MAX_SHOWS = 16
      ASK_SECONDS = 20.0
      # One request that takes longer is not loaded (a report, an export).
      REQUEST_SECONDS = 5.0
      READ_BYTES = 262_144
      MAX_LINKS = 2000

      module_function

      # argv: [rackup, headers as JSON]
      def main(argv, out: $stdout)
        rackup, headers = argv
        # The app's logging goes to stderr, fd 1 included: Rails' production
        # logger writes to STDOUT, the constant, not $stdout.
        real = out.dup
        out.reopen($stderr)
        $stdout = $stderr
        app = booted(real, rackup)
        routes = rails_routes
        emit(real, "booted" => true, "rails" => !routes.empty?, "routes" => routes.size)
        probe(real, app, routes, JSON.parse(headers || "{}"))
      end

      # The app, or its error said in a line (and raised: the trace goes to the log).
      def booted(real, rackup)
        boot(rackup)
      rescue Exception => e # rubocop:disable Lint/RescueException -- said to Arena, then raised again
        emit(real, "boot_error" => said(e))
        raise
      end

      def said(error) = "#{error.class}: #{error.message.lines.first.to_s.chomp}"[0, 300]

      # After the boot, any failure of the probe's own is a line, not a crash.
      def probe(real, app, routes, headers)
        started = now
        answers(app, routes, headers: headers, deadline: started + ASK_SECONDS) { |a| emit(real, "answer" => a) }
        emit(real, "done" => true, "seconds" => (now - started).round(2))
      rescue Exception => e # rubocop:disable Lint/RescueException -- said to Arena, whatever it is
        emit(real, "error" => said(e), "at" => e.backtrace&.first.to_s[0, 200])
      end

      def emit(real, doc)
        real.write("#{JSON.generate(doc)}\n")
        real.flush
      end

      def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

      def boot(rackup)
        require "rack"
        built = Dir.chdir(File.dirname(File.expand_path(rackup))) { Rack::Builder.parse_file(File.expand_path(rackup)) }
        # Rack 2 returns [app, options], Rack 3 the app.
        built.is_a?(Array) ? built.first : built
      end

      # Asks the lists, then the filled routes; yields each answer (links
      # left out) and returns them all.
      def answers(app, routes, headers:, deadline:)
        out = []
        ask_each = lambda do |path, extra|
          next if now > deadline || out.any? { |a| a["path"] == path }
          answer = ask(app, path, headers).merge(extra.compact)
          out << answer
          yield answer.except("links") if block_given?
        end
        lists(routes).each { |r| ask_each.call(r[:path], "route" => r[:name]) }
        static = routes.select { |r| r[:params].empty? }.map { |r| r[:path] }
        shows(routes).each do |r|
          break if out.count { |a| a["from"] } >= MAX_SHOWS || now > deadline
          filled = fill(r, out, static: static)
          ask_each.call(filled[:path], "route" => r[:name], "from" => filled[:from]) if filled
        end
        linked(out).each { |path| ask_each.call(path, "from" => "/") } if routes.empty?
        out
      end

      # An app without Rails' routes: the pages "/" links to stand for it.
      def linked(answered)
        home = answered.find { |a| a["path"] == "/" && a["status"].to_i.between?(200, 299) }
        (home&.fetch("links", nil) || []).reject { |l| l == "/" }.first(MAX_SHOWS)
      end

      # "/" and the routes without parameters, an index before other actions.
      def lists(routes)
        own = routes.select { |r| r[:params].empty? && !r[:internal] }.each_with_index
          .sort_by { |r, i| [r[:name].to_s.end_with?("#index") ? 0 : 1, r[:path].count("/"), i] }.map(&:first)
        ([{path: "/", name: routes.find { |r| r[:path] == "/" }&.dig(:name)}] + own).uniq { |r| r[:path] }.first(MAX_LISTS + 1)
      end

      # The routes with one parameter, a show (the parameter last) first.
      def shows(routes)
        routes.select { |r| r[:params].size == 1 && !r[:internal] }.each_with_index
          .sort_by { |r, i| [r[:path].end_with?(":#{r[:params].first}") ? 0 : 1, r[:path].count("/"), i] }.map(&:first)
      end

      # A Rails app's GET routes: [{path:, params:, name:, internal:, reqs:}],
      # none for an app that is not Rails.
      def rails_routes
        return [] unless defined?(::Rails) && ::Rails.respond_to?(:application) && ::Rails.application
        ::Rails.application.routes.routes.filter_map { |route| route_of(route) }.uniq { |r| r[:path] }
      rescue => e
        warn "routes: #{e.class}: #{e.message}"
        []
      end

      def route_of(route)
        verb = route.verb.to_s
        return nil unless verb.empty? || verb.match?(/\bGET\b/)
        path = route.path.spec.to_s.gsub(/\([^()]*\)/, "") # optional parts, "(.:format)", left out
        return nil if path.include?("*") || path.empty?
        name = "#{route.defaults[:controller]}##{route.defaults[:action]}"
        reqs = route.requirements.to_h.filter_map { |k, v| [k.to_s, v.source] if v.is_a?(Regexp) }.to_h
        {path: path, params: path.scan(/:(\w+)/).flatten, name: name, reqs: reqs,
         internal: path.match?(INTERNAL) || (route.respond_to?(:internal) && route.internal) || HEALTH.include?(name)}
      rescue => e
        warn "route #{route.inspect[0, 100]}: #{e.class}: #{e.message}"
        nil
      end

      # A route with one parameter, filled from what the app answered: the
      # first id of its index's JSON, else the first link of an answered page
      # that the route matches (and that is not a route of its own, such as
      # /issues/new beside /issues/:id). nil when none.
      def fill(route, answered, static: [])
        good = answered.select { |a| a["status"].to_i.between?(200, 299) }
        from_ids(route, good) || from_links(route, good, static)
      end

      def from_ids(route, good)
        param = route[:params].first
        index = route[:path].sub(%r{/:#{param}\z}, "")
        return nil if index == route[:path] || index.include?(":")
        id = good.find { |a| a["path"] == index && a["ids"] }&.dig("ids", 0)
        id && {path: route[:path].sub(":#{param}", id.to_s), from: index}
      end

      def from_links(route, good, static)
        pattern = matcher(route)
        good.each do |a|
          link = (a["links"] || []).find { |l| l.match?(pattern) && !static.include?(l) }
          return {path: link, from: a["path"]} if link
        end
        nil
      end

      # /issues/:id -> \A/issues/(\d+)\z with the route's own requirement.
      def matcher(route)
        param = route[:params].first
        value = (route[:reqs] || {})[param] || "[^/.?#]+"
        left, right = route[:path].split(":#{param}", 2)
        Regexp.new("\\A#{Regexp.escape(left)}(?:#{value})#{Regexp.escape(right.to_s)}\\z")
      end

      def ask(app, path, headers)
        require "timeout"
        status, response_headers, body = Timeout.timeout(REQUEST_SECONDS) { app.call(environment(path, headers)) }
        text = Timeout.timeout(REQUEST_SECONDS) { read(body) }
        type = header(response_headers, "content-type").to_s
        {"path" => path, "status" => status.to_i, "type" => type, "bytes" => text.bytesize, "ids" => ids(text, type),
         "location" => header(response_headers, "location"), "links" => links(text, type)}.compact
      rescue Exception => e # rubocop:disable Lint/RescueException -- an app's error is an answer: the next path is asked
        {"path" => path, "status" => 0, "why" => "#{e.class}: #{e.message}"[0, 200]}
      end

      def header(headers, name) = headers.to_h.find { |k, _| k.to_s.casecmp?(name) }&.last

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

      # The app's own paths an HTML page links to (href="/issues/12"), in
      # order, without query or fragment; another host's links left out.
      def links(text, type)
        return nil unless type.include?("html")
        found = text.scan(/href\s*=\s*["'](\/[^"'#?\s]*)/i).flatten.reject { |l| l.start_with?("//") }
        found = found.map { |l| l.gsub("&amp;", "&") }.uniq.first(MAX_LINKS)
        found.empty? ? nil : found
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
