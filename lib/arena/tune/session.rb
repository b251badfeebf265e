# frozen_string_literal: true

require "fileutils"
require_relative "../support/affinity"
require_relative "../support/format"
require_relative "answer_phase"
require_relative "confirm_phase"
require_relative "context"
require_relative "head_to_head_phase"
require_relative "look_phase"
require_relative "prelude"
require_relative "search_phase"
require_relative "time_budget"

module Arena
  module Tune
    # One `arena tune`, from its plan to its exit status, in the order a
    # person would do it by hand (puma's Launcher: the command parses, the
    # session runs). It only sequences the phases; each owns its state and
    # hands the next what it found, as values:
    #
    # 1. what to load, how slow the app is and what it runs today (Prelude);
    # 2. the time (TimeBudget): the confirmation's kept before anything else;
    # 3. every server's documented start looked at once (LookPhase);
    # 4. the leaders searched in the time left, the rest keep their start
    #    (SearchPhase);
    # 5. the finalists head to head, a provisional answer (HeadToHeadPhase);
    # 6. the answer, the runner-up and the baseline in confirmation rounds
    #    of their own, whose verdict is the answer (ConfirmPhase);
    # 7. the answer's notes, everything written, the answer said (AnswerPhase).
    #
    # What no phase had time for (NotDone) goes along to the answer. The
    # terminal gets a line per candidate and the answer block; the reasoning
    # goes to report.md and, with --verbose, to the terminal.
    class Session
      # What the command chose: memory (the budget, bytes), tune_runtime
      # (search YJIT and jemalloc), verbose, budget_given (--max-time was set),
      # discover (ask the app what to load).
      # duration_given: --duration was set (a slow app's loads are not lengthened).
      # argv and cwd: the command's arguments and working directory, recorded for `arena tune --resume`.
      # dry_run: stop after the time's plan (the app asked and paced, no server started).
      Options = Struct.new(:memory, :tune_runtime, :verbose, :budget_given, :discover, :duration_given, :argv, :cwd, :dry_run,
        keyword_init: true)

      def initialize(plan:, options:, err:, out:)
        @plan = plan
        @options = options
        @err = err
        @out = out
      end

      # -> the exit status: 0 with an answer, 2 when nothing was measured.
      # --max-time counts from here: the app asked and paced (about 20 s on
      # a large Rails app) are in it, and a 10-minute tune ended at 606 s.
      def call
        opened_at = Support::Clock.now
        Support::Affinity.pin_self(@plan.machine.engine_cpus)
        FileUtils.mkdir_p(@plan.out_dir)
        ground = Prelude.new(options: @options, say: method(:say)).call(@plan)
        time = TimeBudget.planned(ground.plan, pace: ground.pace, tune_runtime: @options.tune_runtime, given: @options.budget_given,
          say: method(:say), detail: method(:detail)).start(opened_at)
        return dry(ground) if @options.dry_run
        ctx = opened(ground)
        interrupted = phases(ctx, ground, time)
        AnswerPhase.new(ctx, out: @out).finish(interrupted, started: time.started, err: @err)
      end

      private

      def say(line) = @err.puts(line)

      # --dry-run: the plan said, nothing more started.
      def dry(ground)
        say "tune: --dry-run: #{ground.plan.servers.map(&:key).join(", ")}; no server started " \
          "(the app was booted to ask what it serves and how fast)"
        0
      end

      def detail(line) = (say(line) if @options.verbose)

      # The results file, the tune's own output, the engine and the starter (Context), said.
      def opened(ground)
        ctx = Context.open(ground, options: @options, err: @err)
        plan = ctx.plan
        say "tune: #{plan.servers.size} servers on #{plan.workloads.first.name}, memory budget " \
          "#{Support::Format.memory_kb(ctx.constraints.memory_mib * 1024)}, at most #{plan.load.max_time.round} s"
        detail "tune: #{plan.servers.map(&:key).join(", ")}"
        say "tune: results in #{plan.out_dir}"
        ctx
      end

      # Steps 3-7's first part; true when interrupted. Whatever ends it, every server still up stops.
      def phases(ctx, ground, time)
        looked = LookPhase.new(ctx).call(time, yours: ground.yours.key)
        searched = SearchPhase.new(ctx).call(looked, yours: ground.yours.key)
        return true if searched.interrupted
        provisional = HeadToHeadPhase.new(ctx).call(searched, not_done: looked.not_done + searched.not_done,
          deadline: time.head_to_head_deadline)
        answer = ConfirmPhase.new(ctx).call(provisional, searched: searched, ground: ground, time: time)
        ctx.output.answer = AnswerPhase.new(ctx, out: @out).with_notes(answer)
        false
      rescue Interrupt
        true
      ensure
        ctx.close
      end
    end
  end
end
