# frozen_string_literal: true

require "fileutils"
require_relative "../cli"
require_relative "../launch/database"
require_relative "../load/engine"
require_relative "../load/settings"
require_relative "../plan/budget"
require_relative "../planner/builder"
require_relative "../remote"
require_relative "../report/brief"
require_relative "../report/closing"
require_relative "../report/files"
require_relative "../report/preset_summary"
require_relative "../report/terminal"
require_relative "../results/host_facts"
require_relative "../results/store"
require_relative "../run/runner"
require_relative "../scenarios/base"
require_relative "../support/affinity"
require_relative "base"

module Arena
  module Commands
    # `arena run`: plan, start, verify, load, report.
    class Run < Base
      # 0 when something was measured (a server that failed beside others is
      # a finding in the results, not the run's failure); 2 when nothing
      # could be (every server failed to start or verify).
      def self.status(document) = document.measured.empty? ? 2 : 0

      def call
        builder = Planner::Builder.new(say: ->(line) { @err.puts line })
        OptionParser.new do |parser|
          parser.banner = "usage: arena run [options]"
          builder.define(parser)
          parser.on("--verbose", "a line per measurement and the detail at the end: each request of a mix, the waiting/working " \
            "split, every finding's reason (default: one progress line, rewritten in place on a terminal, and the summary)") { @verbose = true }
          parser.on("-h", "--help", "this help") { @help = parser.help }
        end.parse!(@argv)
        return help if @help
        raise UsageError, "unexpected argument #{@argv.first.inspect}" unless @argv.empty?
        plan = builder.build
        builder.remote.check(plan)
        # Fitted to its time and said before anything starts (issue 35).
        plan = plan.with_budget(Plan::Budget.call(plan, given_s: builder.max_time_given, scenarios: Scenarios))
        @err.puts Plan::Budget.line(plan)
        return dry_run(plan) if builder.dry_run
        # Servers on another host (docs/distributed.md): its agent starts them, the engine may load its address.
        remote = Remote::Session.new(options: builder.remote, plan: plan, err: @err).open if builder.remote.any?
        announce(plan.preset) if plan.preset
        FileUtils.mkdir_p(plan.out_dir)
        # A throwaway database for a Rails app (--database): up before the first server, gone after the last.
        Launch::Database.open(plan, err: @err) { |planned| measure(planned, remote) }
      end

      private

      def measure(plan, remote)
        Support::Affinity.pin_self(plan.machine.engine_cpus)
        environment = Results::HostFacts.capture(machine: plan.machine, engine_version: Load::Engine.version)
        store = Results::Store.new(path: File.join(plan.out_dir, "results.json"),
          environment: remote ? remote.environment(environment) : environment, plan: plan.to_h)
        runner = Arena::Run::Runner.new(plan: plan, reporter: Arena::Report::Fanout.new(Arena::Report::Terminal.new(out: @out, err: @err, verbose: @verbose), Arena::Report::Files.new(dir: plan.out_dir, err: @err)), store: store,
          **(remote ? remote.runner_options : {}))
        begin
          runner.call
        ensure
          remote&.close
          FileUtils.cp(store.path, plan.json_path) if plan.json_path
        end
        @out.print Arena::Report::PresetSummary.new(store.view).render if plan.preset
        @out.flush
        @err.puts "results: #{store.path}"
        # The pick is the run's answer: printed last, after every path and
        # table; its reasons (and the whole recommendations) are report.md's.
        if @verbose
          Arena::Report::Closing.new(store.view).write(@out)
        else
          Arena::Report::Brief.new(store.view).pick_lines.then { |lines| @out.puts("", *lines) unless lines.empty? }
        end
        @out.flush
        Run.status(store.view)
      end

      def help
        @out.puts @help, "", CLI::EXIT_STATUS
        0
      end

      # --dry-run: the plan, unit by unit, and the estimate; nothing started.
      def dry_run(plan)
        fit = plan.budget
        @out.puts "plan: #{plan.servers.map(&:label).join(", ")}; workloads #{plan.workloads.map(&:name).join(", ")}; " \
          "scenarios #{plan.scenarios.join(", ")}; #{plan.rounds} round(s), seed #{plan.round_seed}; results would go to #{plan.out_dir}"
        fit.units.each do |unit|
          bound = fit.overrides[unit.scenario]&.map { |k, v| "#{Load.setting(k).switch} #{v.round} s" }&.join(", ")
          @out.puts "  #{unit.key}: about #{Plan::Budget.seconds(unit.seconds)} x #{fit.rounds_of(unit.long)} round(s)#{" (#{bound})" if bound}"
        end
        @out.puts "  start: about #{Plan::Budget.seconds(fit.start_s)} (boots, verification, baselines, warm-ups)"
        @out.puts "  total: about #{Plan::Budget.seconds(fit.seconds)}#{" of #{fit.budget_s.round} s" if fit.budget_s}"
        fit.cuts.each { |cut| @out.puts "  cut: #{cut}" }
        0
      end

      def announce(preset)
        @err.puts "preset #{preset.name} at scale #{preset.scale} (seed #{preset.seed})"
        preset.skipped.each { |note| @err.puts "  #{note}" }
      end
    end
  end
end
