# frozen_string_literal: true

require_relative "../plan/baseline"
require_relative "../plan/discovery"
require_relative "../plan/pace"
require_relative "../planner/server_list"
require_relative "../support/short"
require_relative "estimate"

module Arena
  module Tune
    # The tune's first phase, before any server starts: what to load
    # (Plan::Discovery, when asked), how slow the app is (Plan::Pace) and
    # what it runs today (Plan::Baseline), each said as it is found.
    class Prelude
      # plan: the plan with the discovered workload and loads sized to the
      # pace; discovered: the workload's [path, status, weight] (Plan::Discovery.paths;
      # nil when not discovered); pace: Plan::Pace's (nil when not measured); baseline:
      # Plan::Baseline's Found.
      Ground = Struct.new(:plan, :discovered, :pace, :baseline, keyword_init: true) do
        # The baseline as a server adapter: what the app runs today.
        def yours = Planner::ServerList.parse([baseline.spec], machine: plan.machine).first
      end

      # options: Session::Options; say: where its lines go.
      def initialize(options:, say:)
        @options = options
        @say = say
      end

      def call(plan)
        discovered = nil
        if @options.discover
          found = discover(plan)
          discovered = Plan::Discovery.paths(found.workload)
          plan = plan.with(workloads: [found.workload])
        end
        pace, plan = paced(plan)
        Ground.new(plan: plan, discovered: discovered, pace: pace, baseline: baseline(plan)).freeze
      end

      private

      def say(line) = @say.call(line)

      # The paths the app answers, asked of it once (Plan::Discovery): said,
      # and how to choose others; none answering 2xx stops here (exit 2).
      def discover(plan)
        found = Plan::Discovery.new(app: plan.app, dir: plan.out_dir, headers: plan.headers || {}, env: plan.env || {}).call
        found.lines.each { |line| say(line) }
        found
      end

      # How slow the app is (Plan::Pace), asked once of a user's app: its
      # boot plans the time, and a slow app's loads are sized to hold
      # Estimate::LOAD_REQUESTS (unless --duration was given). -> [pace, plan].
      def paced(plan)
        return [nil, plan] if plan.app.builtin
        pace, why = Plan::Pace.new(app: plan.app, dir: plan.out_dir, headers: plan.headers || {}, env: plan.env || {}).call(plan.workloads.first)
        return [nil, plan.tap { say "tune: the app's pace was not measured (#{why}): loads of #{plan.load.duration} s" }] unless pace
        rps = 0.8 * pace.rps_per_core * plan.machine.server_cores
        duration = @options.duration_given ? plan.load.duration : Estimate.duration_for(rps, default: plan.load.duration)
        say "tune: the app boots in #{pace.boot_s} s and takes #{Support::Short.sig(pace.service_ms)} ms a request in process " \
          "(#{Support::Short.sig(pace.cpu_ms.to_f)} ms CPU): loads of #{duration} s"
        [pace, plan.with(load: plan.load.with(duration: duration))]
      end

      # What the app runs today (Plan::Baseline), said before the search.
      def baseline(plan)
        found = Plan::Baseline.new(dir: (plan.app.dir unless plan.app.builtin), env: ENV.to_h.merge(plan.env || {}),
          cores: plan.machine.server_cores).call
        say "tune: measured against #{found.yours}"
        found.notes.each { |note| say "tune: baseline: #{note}" } unless found.source == "the Rails default"
        found
      end
    end
  end
end
