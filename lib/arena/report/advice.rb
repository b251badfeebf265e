# frozen_string_literal: true

require "shellwords"
require_relative "../core"
require_relative "../plan/workloads"

module Arena
  module Report
    # The commands a report suggests, written for the run they came from: a
    # run on a user's app keeps its --app and its own paths (without them the
    # built-in workload names, or "/", would not run there). Every suggestion
    # goes through the Planner::Builder in a test, in the context it was printed for.
    class Advice
      def initialize(plan)
        @app = plan.app_rackup
        @paths = @app ? plan.get_requests.filter_map { |path, status, body| spec(path, status, body) } : []
      end

      # The run was on a user's app.
      def app? = !@app.nil?

      # "arena run ARGS" in this run's context: with a user's app, its --app
      # and (unless ARGS name workloads) the paths it measured.
      def run(*args)
        context = app? ? ["--app", app_arg] : []
        context += @paths.flat_map { |path| ["--workload", path] } if app? && !args.include?("--workload")
        (["arena", "run"] + context + args).map { |word| quote(word) }.join(" ")
      end

      private

      # The app's directory when its rackup is the usual config.ru.
      def app_arg = (File.basename(@app) == "config.ru") ? File.dirname(@app) : @app

      # PATH[=STATUS[:BODY]], kept only when it reads back as the same request.
      def spec(path, status, body)
        text = path
        text += "=#{status}" if status && (status != 200 || body)
        text += ":#{body}" if body
        parsed = Plan::Workloads.custom(text)
        ([parsed.path, parsed.expect_status, parsed.expect_body] == [path, status || 200, body]) ? text : path
      rescue UsageError
        path
      end

      # Quoted for a POSIX shell only where it needs it.
      def quote(word) = word.match?(%r{\A[\w/.:,=@%+-]+\z}) ? word : "'#{word.gsub("'", %q('"'"'))}'"
    end
  end
end
