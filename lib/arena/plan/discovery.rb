# frozen_string_literal: true

require "json"

module Arena
  class Plan
    # What to load when `arena tune` is given no --workload or --requests:
    # the app's own answer to "what do you serve?". DiscoveryProbe boots the
    # app once in a process of its own, in the app's bundle, and asks it for
    # "/", a Rails app's GET routes without parameters, and a route with one
    # parameter filled from its index. Every path that answered 2xx is loaded,
    # in one mix of equal weights; none answering 2xx stops the tune at once
    # (a UsageError: exit 2) with the paths tried and what each answered.
    class Discovery
      PROBE = File.expand_path("discovery_probe.rb", __dir__)
      # At most this many paths in the mix: a few routes stand for an app.
      MOST = 5
      NAME = "routes"

      Found = Struct.new(:workload, :lines, keyword_init: true)

      # headers: sent with every question (the proxy's X-Forwarded-Proto).
      def initialize(app:, dir:, headers: {}, env: {}, timeout: 45.0)
        @app = app
        @dir = dir
        @headers = headers
        @env = env
        @timeout = timeout
      end

      def call
        Discovery.choose(ask)
      end

      # The probe's document -> Found, or a UsageError naming what was tried.
      # Pure: a rule on the answers.
      def self.choose(doc)
        answers = doc.fetch("answers", [])
        good = answers.select { |a| a["status"].to_i.between?(200, 299) && a["why"].nil? }
        chosen = good.reject { |a| a["from"] }.first(MOST - 1)
        chosen += good.select { |a| a["from"] }.first(MOST - chosen.size)
        tried = answers.map { |a| "#{a["path"]} (#{answered(a)})" }
        if chosen.empty?
          raise UsageError, "no path answered 2xx, so there is nothing to load: tried #{tried.empty? ? "nothing (no routes found)" : tried.join(", ")}; " \
            "give the paths to load: --workload PATH[,PATH] or --requests FILE"
        end
        filled = chosen.select { |a| a["from"] }.map { |a| "#{a["path"]}'s id from #{a["from"]}" }
        left = (answers - chosen).map { |a| "#{a["path"]} (#{answered(a)})" }
        lines = ["tune: no --workload: loading GET #{chosen.map { |a| a["path"] }.join(", ")}, equal shares",
          ("tune: #{[*filled, ("not loaded: #{left.join(", ")}" unless left.empty?)].compact.join("; ")}" unless filled.empty? && left.empty?),
          "tune: --workload PATH[,PATH] or --requests FILE loads others"].compact.map { |l| fit(l) }
        Found.new(workload: workload(chosen), lines: lines.freeze).freeze
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

      # One path is itself; several are a mix of equal weights.
      def self.workload(chosen)
        members = chosen.map { |a| Plan::Workloads.custom("#{a["path"]}=#{a["status"]}") }
        return members.first if members.size == 1
        Plan::Workload.new(name: NAME, path: members.first.path, method: "GET", content_type: nil, expect_status: nil,
          expect_body: nil, mix: members.map { |m| [1, m] }.freeze).freeze
      end

      private

      # The probe's JSON, from a process group of its own, stopped at the
      # timeout (a boot that hangs stops the tune, said in one line).
      def ask
        out_path = File.join(@dir, "discovery.json")
        log_path = File.join(@dir, "discovery.log")
        File.write(out_path, "")
        group = Launch::ProcessGroup.new(["bundle", "exec", "ruby", PROBE, @app.rackup, JSON.generate(@headers)], log_path: log_path,
          chdir: @app.dir, env: env)
        status = File.open(out_path, "w") do |out|
          group.start(out: out)
          group.wait(timeout: @timeout)
        ensure
          group.stop(grace: 2)
        end
        raise UsageError, "the app did not boot within #{@timeout.round} s to say what it serves (#{log_path}); give --workload PATH" if status.nil?
        text = File.read(out_path)
        unless status.respond_to?(:success?) && status.success? && !text.empty?
          raise UsageError, "the app failed to boot to say what it serves: #{group.log_tail(3).join(" | ")[0, 300]} " \
            "(#{log_path}); give --workload PATH"
        end
        JSON.parse(text)
      rescue JSON::ParserError
        raise UsageError, "the app's answer to what it serves was not readable (#{out_path}); give --workload PATH"
      end

      # The app's bundle as a server gets it, Arena's own bundle cleaned out.
      def env
        @app.bundle_env.merge("RUBYOPT" => nil, "RUBYLIB" => nil, "BUNDLE_BIN_PATH" => nil, "BUNDLER_SETUP" => nil,
          "BUNDLER_VERSION" => nil).merge(APP_ENV).merge(@app.env || {}).merge(@env)
      end
    end
  end
end
