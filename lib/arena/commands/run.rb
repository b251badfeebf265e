# frozen_string_literal: true

require_relative "base"

require "fileutils"
require_relative "../remote/session"

module Arena
  module Commands
    # `arena run`: plan, start, verify, load, report.
    class Run < Base
      def call
        builder = PlanBuilder.new(say: ->(line) { @err.puts line }).parse(@argv, banner: "usage: arena run [options]")
        raise UsageError, "unexpected argument #{@argv.first.inspect}" unless @argv.empty?
        plan = builder.build
        builder.remote.check(plan)
        # Servers on another host (docs/distributed.md): its agent starts them, the engine may load its address.
        remote = Remote::Session.new(options: builder.remote, plan: plan, err: @err).open if builder.remote.any?
        announce(plan.preset) if plan.preset
        FileUtils.mkdir_p(plan.out_dir)
        # A throwaway database for a Rails app (--database): up before the first server, gone after the last.
        Database.open(plan, err: @err) { |planned| measure(planned, remote) }
      end

      private

      def measure(plan, remote)
        environment = Environment.capture(machine: plan.machine, engine_version: Load::Engine.version)
        store = Results::Store.new(path: File.join(plan.out_dir, "results.json"),
          environment: remote ? remote.environment(environment) : environment, plan: plan.to_h)
        runner = Runner.new(plan: plan, reporter: Report::Fanout.new(Report::Terminal.new(out: @out, err: @err), Report::Files.new(dir: plan.out_dir, err: @err)), store: store,
          **(remote ? {engine: remote.engine, starter: remote.starter} : {}))
        begin
          runner.call
        ensure
          remote&.close
          FileUtils.cp(store.path, plan.json_path) if plan.json_path
        end
        @out.print PresetSummary.new(store.view).render if plan.preset
        @err.puts "results: #{store.path}"
        runner.failures.empty? ? 0 : 1
      end

      def announce(preset)
        @err.puts "preset #{preset["name"]} at scale #{preset["scale"]} (seed #{preset["seed"]})"
        preset["skipped"].each { |note| @err.puts "  #{note}" }
      end
    end
  end
end
