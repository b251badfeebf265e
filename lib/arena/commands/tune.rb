# frozen_string_literal: true

require_relative "../bundle/app_digest"
require_relative "../launch/database"
require_relative "../planner/builder"
require "fileutils"
require_relative "../plan/discovery"
require_relative "../plan/proxy_headers"
require_relative "../plan/workloads"
require_relative "../results/tune_resume"
require_relative "../tune"
require_relative "base"

module Arena
  module Commands
    # `arena tune`: for each server, search its declared settings for the
    # config that sustains the highest open-model rate within the SLO, the
    # memory budget and 1% errors (lib/arena/tune/search.rb). Takes `arena
    # run`'s app, workload, server and load options; every candidate is a
    # normal measurement in DIR/results.json.
    #
    # The command parses; Tune::Session runs. On a user's app with no
    # flags, a Rails app that forces SSL gets the header its proxy sends
    # (Plan::ProxyHeaders), and the session asks the app what to load
    # (Plan::Discovery) and reads what it runs today (Plan::Baseline).
    # Exit 2 when nothing could be measured.
    class Tune < Base
      BANNER = "usage: arena tune [--servers LIST] [--workload NAME] [--memory SIZE] [--slo MS] [--max-time SEC] [run's options]\n" \
        "       arena tune --resume DIR [--max-time SEC]"
      # What --resume takes beside it: the rest is the tune's own, recorded in DIR.
      RESUME_FLAGS = %w[--resume --max-time --verbose].freeze
      # Shorter than `arena run`'s: a tune measures many configs.
      DEFAULTS = {duration: 2.0, warmup: 0.5, max_time: 600.0, settle_timeout: 10.0}.freeze

      def call
        @given = @argv.dup
        builder = parse
        return resume(builder.options[:max_time]) if @resume
        plan = planned(builder)
        memory = @memory || builder.options[:memory_budget_mb]&.then { |mb| (mb * 1024**2).round } || Arena::Tune::Budget.default_bytes
        FileUtils.mkdir_p(plan.out_dir)
        Launch::Database.open(plan, err: @err) do |opened|
          options = Arena::Tune::Session::Options.new(memory: memory, tune_runtime: @tune_runtime, verbose: @verbose,
            budget_given: @budget_given, discover: @discover, duration_given: @duration_given,
            argv: @given, cwd: Dir.pwd, dry_run: builder.dry_run)
          Arena::Tune::Session.new(plan: opened, options: options, err: @err, out: @out).call
        end
      end

      private

      # `--resume DIR`: more confirmation rounds for the tune in DIR, planned
      # as it was, refused in one line when the app changed since.
      def resume(max_time)
        extra = @given.select { |a| a.start_with?("-") }.map { |a| a.split("=", 2).first } - RESUME_FLAGS
        raise UsageError, "--resume takes only --max-time and --verbose (the rest is the tune's own): not #{extra.first}" unless extra.empty?
        record = Results::TuneResume.read(File.expand_path(@resume))
        plan = replanned(record)
        change = Bundle::AppDigest.of(plan.app).change_from(record.recipe.digest)
        raise UsageError, "#{record.dir}: the app changed since this tune (#{change}): its rounds cannot be merged; run arena tune again" if change
        max_time ||= DEFAULTS[:max_time]
        Launch::Database.open(plan, err: @err) do |opened|
          Arena::Tune::Resume.new(plan: opened, record: record, max_time: max_time, err: @err, out: @out, verbose: @verbose).call
        end
      end

      # The tune's plan again: its arguments parsed where it ran, its results
      # in DIR, the paths it discovered (not asked of the app again).
      def replanned(record)
        recipe = record.recipe
        raise UsageError, "#{record.dir}: the tune ran in #{recipe.cwd}, which is gone" unless File.directory?(recipe.cwd)
        @argv = recipe.argv + ["--out", record.dir]
        plan = Dir.chdir(recipe.cwd) { planned(parse) }
        plan = plan.with(load: plan.load.with(duration: record.duration_s)) if record.duration_s
        return plan unless recipe.discovered
        plan.with(workloads: [Plan::Discovery.again(recipe.discovered)])
      end

      # The options: run's (Planner::Builder) and tune's own.
      def parse
        builder = Planner::Builder.new(say: ->(line) { @err.puts line })
        @proxy_headers = true
        OptionParser.new do |parser|
          parser.banner = BANNER
          builder.define(parser)
          parser.on("--tune-runtime", "also search YJIT and jemalloc (off and on) for every MRI server") { @tune_runtime = true }
          parser.on("--no-proxy-headers", "no X-Forwarded-Proto: https for an app that forces SSL (default: sent, as its TLS proxy would)") { @proxy_headers = false }
          parser.on("--resume DIR", "more confirmation rounds for the finished tune in DIR (its answer, runner-up and baseline), no search") { |v| @resume = v }
          parser.on("--verbose", "each server's search in full: its start, model, duels and why (default: a line a candidate; report.md has them)") { @verbose = true }
          parser.on("--memory SIZE", "the most PSS a config may use under load: 512MiB, 2GiB or bytes (default 75% of MemAvailable)") do |v|
            @memory = Arena::Tune::Budget.parse(v)
          end
        end.parse!(@argv)
        raise UsageError, "unexpected argument #{@argv.first.inspect}" unless @argv.empty?
        raise UsageError, "arena tune runs its own scenario (sustained): --scenario is for arena run" if builder.options[:scenarios]
        raise UsageError, "arena tune does not take --repeat or --rounds: it measures the start and every leading candidate 3 times and keeps a lead only when significant" if builder.options[:rounds]
        builder
      end

      # The plan: tune's defaults under the options given, one workload (several as one mix), the proxy's headers.
      def planned(builder)
        @budget_given = !builder.options[:max_time].nil?
        @duration_given = !builder.options[:duration].nil?
        DEFAULTS.each { |name, value| builder.options[name] ||= value }
        builder.options[:scenarios] = ["sustained"]
        given = builder.options[:workloads]
        plan = builder.build
        # The built-in app's default workload for a tune is its mixed /random, not run's pair.
        plan = plan.with(workloads: [Plan::Workloads.builtin.fetch("random")]) if plan.app.builtin && given.nil? && !builder.options[:requests_file]
        plan = mixed(plan)
        # A user's app with neither --workload nor --requests: its paths are asked of it (Plan::Discovery).
        @discover = !plan.app.builtin && given.nil? && !builder.options[:requests_file]
        proxied(plan, on: @proxy_headers)
      end

      # Several workloads (--workload A,B, or a requests file's) are searched
      # as one mix, each an equal share, said with its weights.
      def mixed(plan)
        return plan if plan.workloads.size == 1
        mix = Plan::Workloads.mixed(plan.workloads)
        shares = (mix.mix.map(&:first).uniq.size == 1) ? "equal shares" : "by weight"
        @err.puts Plan::Discovery.fit("tune: #{plan.workloads.size} workloads as one mix, #{shares}: " \
          "#{mix.mix.map { |w, wl| "#{w} #{wl.name}" }.join(", ")}")
        plan.with(workloads: [mix])
      end

      # A Rails app that forces SSL gets the header its TLS proxy sends (Plan::ProxyHeaders).
      def proxied(plan, on:)
        headers, line = Plan::ProxyHeaders.for(app_dir: (plan.app.dir unless plan.app.builtin), given: plan.headers || {}, off: !on)
        return plan if headers.empty?
        @err.puts line
        plan.with(headers: (plan.headers || {}).merge(headers).freeze)
      end
    end
  end
end
