# frozen_string_literal: true

require "json"
require_relative "../core"
require_relative "app_probe"
require_relative "plan"
require_relative "workloads"

module Arena
  class Plan
    # What to load when `arena tune` is given no --workload or --requests:
    # the app's own answer to "what do you serve?". DiscoveryProbe boots the
    # app once in a process of its own, in the app's bundle, and asks it for
    # "/", a Rails app's GET routes without parameters (its list pages), and
    # routes with one parameter filled from what those answered (its show
    # pages). Discovery.choose keeps what stands for the app: the list pages
    # and show pages that answered 2xx anonymously, never a redirect (a login
    # page's especially), a 4xx, a failure or an asset. Lists and shows share
    # the load half and half when both are there. None answering 2xx stops
    # the tune at once (a UsageError: exit 2) with the paths tried.
    #
    # A probe that fails after the app booted reads "discovery failed: ...";
    # "the app failed to boot" is kept for an app that did not boot.
    class Discovery
      PROBE = File.expand_path("discovery_probe.rb", __dir__)
      # At most this many paths in the mix, at most half of them show pages.
      MOST = 8
      NAME = "routes"
      # Files and feeds, not pages: never loaded as the app's traffic.
      ASSET_PATH = /\.(css|js|mjs|map|png|jpe?g|gif|svg|ico|webp|avif|woff2?|ttf|eot|txt|xml|pdf|zip|gz)\z/i
      ASSET_TYPE = %r{\A(image|font|audio|video)/|css|javascript|octet-stream|pdf|zip|atom|rss}
      HINT = "--workload PATH[,PATH] or --requests FILE"
      REASONS = {redirect: "redirect", client: "4xx", failed: "failure", asset: "asset", beyond: "more 2xx"}.freeze

      Found = Struct.new(:workload, :lines, keyword_init: true)

      # headers: sent with every question (the proxy's X-Forwarded-Proto).
      # timeout: the boot and the questions together (the probe stops asking
      # on its own after DiscoveryProbe::ASK_SECONDS).
      def initialize(app:, dir:, headers: {}, env: {}, timeout: 90.0, probe: PROBE)
        @app = app
        @dir = dir
        @headers = headers
        @env = env
        @timeout = timeout
        @probe = probe
      end

      def call
        Discovery.choose(ask)
      end

      # The probe's document -> Found, or a UsageError naming what was tried.
      # Pure: a rule on the answers.
      def self.choose(doc)
        answers = doc.fetch("answers", [])
        sorted = sort(answers)
        lists, shows = sorted[:load].partition { |a| a["from"].nil? }
        raise UsageError, nothing(answers) if lists.empty? && shows.empty?
        mix = weigh(lists, shows)
        Found.new(workload: workload(mix), lines: lines(doc, mix, sorted).freeze).freeze
      end

      # {load: [answer...], redirect: [...], client:, failed:, asset:, login:, beyond:}:
      # what is loaded (lists by rank, then shows, at most MOST) and why the rest is not.
      def self.sort(answers)
        targets = logins(answers)
        out = Hash.new { |h, k| h[k] = [] }
        answers.each { |a| out[why_not(a, targets)] << a }
        good = out.delete(nil) || []
        lists = good.reject { |a| a["from"] }.each_with_index.sort_by { |a, i| [rank(a), i] }.map(&:first)
        shows = good.select { |a| a["from"] }.each_with_index.sort_by { |a, i| [a["route"].to_s.end_with?("#show") ? 0 : 1, i] }
          .map(&:first)
        shows, more_shows = shows.partition.with_index { |_, i| i < MOST / 2 }
        lists, more = lists.partition.with_index { |_, i| i < MOST - shows.size }
        out[:beyond] += more + more_shows
        out.merge(load: lists + shows)
      end

      # nil when the answer may be loaded, else why not.
      def self.why_not(a, targets)
        status = a["status"].to_i
        return :failed if a["why"] || status.zero? || status >= 500 || status < 200
        return :redirect if status.between?(300, 399)
        return :client if status.between?(400, 499)
        return :asset if a["path"].to_s.split("?").first.match?(ASSET_PATH) || a["type"].to_s.match?(ASSET_TYPE)
        :login if targets.include?(a["path"].to_s.split("?").first)
      end

      # The pages two or more redirects go to (a login page), "/" aside: the
      # home page a logout redirects to is a page of the app's own.
      def self.logins(answers)
        targets = answers.filter_map { |a| target(a["location"]) if a["status"].to_i.between?(300, 399) }
        targets.tally.filter_map { |path, n| path if n >= 2 && path != "/" }
      end

      # A redirect's path on this app (its host and query left out).
      def self.target(location)
        return nil if location.nil?
        path = location.to_s.sub(%r{\A\w+://[^/]+}, "").split(/[?#]/).first
        (path.nil? || path.empty?) ? "/" : path
      end

      # "/" first, then an index action, then a short path.
      def self.rank(a) = [(a["path"] == "/") ? 0 : 1, a["route"].to_s.end_with?("#index") ? 0 : 1, a["path"].to_s.count("/")]

      # [[weight, answer]...]: lists and shows half and half when both are there.
      def self.weigh(lists, shows)
        return (lists + shows).map { |a| [1, a] } if lists.empty? || shows.empty?
        gcd = lists.size.gcd(shows.size)
        lists.map { |a| [shows.size / gcd, a] } + shows.map { |a| [lists.size / gcd, a] }
      end

      def self.nothing(answers)
        tried = answers.first(6).map { |a| "#{a["path"]} (#{answered(a)})" }
        tried << "#{answers.size - 6} more" if answers.size > 6
        "no path answered 2xx, so there is nothing to load: tried #{tried.empty? ? "nothing (no routes found)" : tried.join(", ")}" \
          "#{login_hint(answers)}; give the paths to load: #{HINT}"
      end

      # Most pages redirecting to one page: the app wants a login.
      def self.login_hint(answers)
        targets = answers.filter_map { |a| target(a["location"]) if a["status"].to_i.between?(300, 399) }
        top, count = targets.tally.max_by(&:last)
        return "" unless top && count * 2 >= answers.size && count > 1
        " (#{count} of #{answers.size} redirect to #{top}: pages behind a login need its cookie, --header 'Cookie: ...')"
      end

      def self.lines(doc, mix, sorted)
        asked = doc.fetch("answers", []).size
        routes = doc["routes"].to_i.positive? ? " (of #{doc["routes"]} GET routes)" : ""
        took = doc["seconds"] ? " in #{doc["seconds"].round(1)} s" : ""
        stopped = doc["stopped"] ? ", stopped at the time limit" : ""
        shares = (mix.map(&:first).uniq.size == 1) ? "equal shares" : "by weight"
        ["tune: no --workload: asked the app #{asked} path#{"s" unless asked == 1}#{routes}#{took}#{stopped}; loading GET, #{shares}:",
          *wrap(mix.map { |w, a| "#{w} #{a["path"]}" }),
          ("tune:   #{left_words(mix, sorted)}" unless left_words(mix, sorted).empty?),
          "tune: --workload PATH[,PATH] (repeatable) or --requests FILE loads others, as one mix"].compact.map { |l| fit(l) }
      end

      # "tune:   1 /a, 1 /b, ..." in lines of 100 columns, two at most.
      def self.wrap(items, lines: 2)
        items.each_with_object([]) do |item, out|
          if out.empty? || (out.size < lines && out.last.size + item.size + 2 > 100)
            out << "tune:   #{item}"
          else
            out[-1] += ", #{item}"
          end
        end
      end

      # What was not loaded: named when few, counted when many; and where the
      # show pages' ids came from, when that fits too.
      def self.left_words(mix, sorted)
        from = mix.filter_map { |_, a| a["from"] }.uniq
        left = REASONS.keys.sum { |k| sorted.fetch(k, []).size } + sorted.fetch(:login, []).size
        words = if left <= 3
          (sorted.fetch(:login, []) + REASONS.keys.flat_map { |k| sorted.fetch(k, []) }).map { |a| "#{a["path"]} (#{answered(a)})" }
        else
          [redirect_words(sorted.fetch(:redirect, []), sorted.fetch(:login, []))] +
            REASONS.except(:redirect).filter_map { |k, word| counted(sorted.fetch(k, []).size, word) }
        end
        said = words.compact.empty? ? "" : "not loaded: #{words.compact.join(", ")}"
        ids = "ids from #{from.join(", ")}"
        return said if from.empty? || said.size + ids.size > 88
        said.empty? ? ids : "#{ids}; #{said}"
      end

      # "/login and the 3 redirects to it", "5 redirects (4 to /login)".
      def self.redirect_words(redirects, logins)
        top, count = redirects.filter_map { |a| target(a["location"]) }.tally.max_by(&:last)
        return counted(redirects.size, "redirect") if top.nil?
        some = (count == redirects.size) ? "the" : "#{count} of the"
        return "#{logins.map { |a| a["path"] }.join(", ")} and #{some} #{counted(redirects.size, "redirect")} to it" unless logins.empty?
        "#{counted(redirects.size, "redirect")} (#{"#{count} " unless count == redirects.size}to #{top})"
      end

      def self.counted(n, word)
        return nil if n.zero?
        "#{n} #{word}#{"s" if n > 1 && word.match?(/\A[a-z]+\z/)}"
      end

      # One line in 100 columns: a long list of paths is cut, said with "…".
      def self.fit(line) = (line.size <= 100) ? line : "#{line[0, 99]}…"

      def self.answered(a)
        return a["why"] if a["status"].to_i.zero?
        text = a["status"].to_s
        text += " to #{a["location"]}" if a["location"]
        text += ": #{a["why"]}" if a["why"]
        text
      end

      # What a tune keeps to load the same again (`arena tune --resume`):
      # [[path, status, weight]], the inverse of .workload's mix.
      def self.paths(workload)
        return [[workload.path, workload.expect_status, 1]] unless workload.mix?
        workload.mix.map { |weight, w| [w.path, w.expect_status, weight] }
      end

      # .paths' list made a workload again.
      def self.again(paths) = workload(paths.map { |path, status, weight| [weight || 1, {"path" => path, "status" => status}] })

      # One path is itself; several are a mix of their weights.
      def self.workload(mix)
        members = mix.map { |w, a| [w, Plan::Workloads.custom("#{a["path"]}=#{a["status"]}")] }
        return members.first.last if members.size == 1
        first = members.first.last
        Plan::Workload.new(name: NAME, path: first.path, method: "GET", content_type: nil, expect_status: nil,
          expect_body: nil, mix: members.freeze).freeze
      end

      # The probe's JSON lines -> one document: {"booted", "rails", "routes",
      # "answers", "done", "seconds", "error", "at"}. A line cut short (the
      # probe stopped mid-write) is left out.
      def self.read(text)
        text.each_line.with_object({"answers" => []}) do |line, doc|
          item = JSON.parse(line)
          next unless item.is_a?(Hash)
          item.key?("answer") ? doc["answers"] << item["answer"] : doc.merge!(item)
        rescue JSON::ParserError
          next
        end
      end

      # The document, or why discovery could not say what to load. exited:
      # the probe's end ("exit 1"), nil when it was stopped at the timeout.
      def self.judge(doc, exited:, timeout:, log:, tail:)
        unless doc["booted"]
          raise UsageError, "the app did not boot within #{timeout.round} s to say what it serves (#{log}); give --workload PATH" if exited.nil?
          raise UsageError, "the app failed to boot to say what it serves: #{(doc["boot_error"] || tail)[0, 300]} (#{log}); " \
            "give --workload PATH"
        end
        raise UsageError, "discovery failed: #{doc["error"]} (#{doc["at"]}; #{log}); give #{HINT}" if doc["error"]
        return doc if doc["done"]
        if exited
          raise UsageError, "discovery failed: the probe ended (#{exited}) after #{doc["answers"].size} answers: " \
            "#{tail[0, 200]} (#{log}); give #{HINT}"
        end
        raise UsageError, "discovery failed: no answer within #{timeout.round} s (#{log}); give #{HINT}" if doc["answers"].empty?
        doc.merge("stopped" => true)
      end

      def self.ended(status)
        return status.to_s unless status.respond_to?(:exitstatus)
        status.exitstatus ? "exit #{status.exitstatus}" : "signal #{status.termsig}"
      end

      private

      # The probe's document, from a process group of its own, stopped at
      # the timeout.
      def ask
        ran = AppProbe.run([@probe, @app.rackup, JSON.generate(@headers)], app: @app, dir: @dir, name: "discovery", ext: "jsonl",
          env: @env, timeout: @timeout)
        exited = ran.status && Discovery.ended(ran.status)
        Discovery.judge(Discovery.read(File.read(ran.out_path)), exited: exited, timeout: @timeout, log: ran.log_path, tail: ran.tail)
      end
    end
  end
end
