# frozen_string_literal: true

require_relative "../report/files"
require_relative "../servers/base"
require_relative "../support/clock"
require_relative "notes"

module Arena
  module Tune
    # The tune's last phase: the answer's standing and the notes from the
    # app's own files (Notes), then everything written (results.json,
    # tune.json, the reports) and the answer said.
    class AnswerPhase
      def initialize(ctx, out:)
        @ctx = ctx
        @out = out
      end

      # The answer's standing and, under it, what the app's own files say of
      # how it runs against how the rounds ran it (Notes).
      def with_notes(answer)
        return answer unless answer.found?
        plan = @ctx.plan
        facts = Notes.facts(app: plan.app, front: plan.front, servers: plan.servers)
        answer.with(standing: Notes.standing(Servers.fetch(answer.server), app: plan.app, servers: @ctx.store.view.servers),
          notes: Notes.lines(server: answer.server, facts: facts))
      end

      # Written, then said: where first, then the answer, last (stderr is not
      # buffered and stdout is into a file or pipe, so the path line came
      # out inside the answer block of a captured log). -> the exit status:
      # 0 with an answer, 2 when nothing was measured.
      def finish(interrupted, started:, err:)
        output = @ctx.output
        @ctx.store.finish(interrupted: interrupted)
        path = output.write(interrupted: interrupted)
        # The report holds the answer and, after it, each server's search in full.
        Report::Files.new(dir: @ctx.plan.out_dir, err: err).write(@ctx.store.view, answer: [*output.answer&.lines, "", *output.detail_lines])
        @ctx.say "tune: #{path} (#{(Support::Clock.now - started).round} s)"
        (@ctx.options.verbose ? output.lines : output.brief_lines).each { |line| @out.puts line }
        @out.flush
        raise Interrupt if interrupted
        output.answer&.found? ? 0 : 2
      end
    end
  end
end
