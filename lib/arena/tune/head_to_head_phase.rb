# frozen_string_literal: true

require_relative "../bundle/result"
require_relative "../support/clock"
require_relative "answer"
require_relative "answer_words"
require_relative "estimate"
require_relative "head_to_head"
require_relative "not_done"
require_relative "triage"

module Arena
  module Tune
    # The tune's head to head: the finalists that meet (Triage.finalists;
    # the rest stopped) in interleaved rounds (HeadToHead) until the time
    # the confirmation keeps, and the provisional answer they give.
    class HeadToHeadPhase
      # answer: the provisional Answer; entries: HeadToHead's; finalists:
      # the ones that met; not_done: what did not happen in time, so far.
      Provisional = Struct.new(:answer, :entries, :finalists, :not_done, keyword_init: true)

      def initialize(ctx)
        @ctx = ctx
      end

      # searched: SearchPhase's; not_done: the phases' before it; deadline: where the confirmation's reserve begins.
      def call(searched, not_done:, deadline:)
        finalists, out = leading(searched.finalists)
        entries, cut = head_to_head(finalists, deadline)
        not_done += out + cut
        versions = finalists.to_h { |f| [f.adapter.key, f.installation.version] }
        output = @ctx.output
        answer = Answer.decide(entries: entries, files: output.files, versions: versions, slos: output.slos,
          memory_mib: @ctx.constraints.memory_mib, not_done: not_done.lines, out: output.unanswered, gems: Bundle::Result.added_gems(@ctx.plan.app))
        Provisional.new(answer: answer, entries: entries, finalists: finalists, not_done: not_done).freeze
      end

      private

      # [the finalists that meet head to head, NotDone for the rest (stopped)].
      def leading(all)
        keep, out = Triage.finalists(all.to_h { |f| [f.adapter.key, f.candidate] })
        not_done = NotDone.new
        all.select { |f| out.include?(f.adapter.key) }.each do |f|
          f.session&.stop
          not_done += NotDone.not_finalist(f.adapter.key, finalists: keep.size, rps: f.candidate.sustained_rps)
        end
        [keep.map { |key| all.find { |f| f.adapter.key == key } }, not_done]
      end

      # [HeadToHead's entries, NotDone for the rounds it did not run]; a
      # lone finalist meets no one, and none meet once the confirmation's
      # reserve has begun (the looks ran over: a slow app's round there
      # cost the confirmation its rounds): the searches' figures rank them.
      def head_to_head(finalists, deadline)
        late = finalists.size > 1 && Support::Clock.now >= deadline
        if finalists.size < 2 || late
          entries = finalists.map { |f| HeadToHead::Entry.new(key: f.adapter.key, adapter: f.adapter, candidate: f.candidate, rates: []) }
          return [entries, NotDone.new] unless late
          finalists.each { |f| f.session&.stop }
          return [entries, NotDone.head_to_head(0, of: Estimate::HEAD_TO_HEAD_ROUNDS)]
        end
        AnswerWords.listed("head to head:", finalists.map { |f| @ctx.labels.call(f.adapter.label) }).each { |line| @ctx.say line }
        h2h = HeadToHead.new(plan: @ctx.plan, store: @ctx.store, engine: @ctx.engine, workload: @ctx.workload,
          rounds: Estimate::HEAD_TO_HEAD_ROUNDS, deadline: deadline, seed: @ctx.seed, log: @ctx.log)
        entries = h2h.call(finalists)
        ran = h2h.rounds_run(entries)
        [entries, (ran < Estimate::HEAD_TO_HEAD_ROUNDS) ? NotDone.head_to_head(ran, of: Estimate::HEAD_TO_HEAD_ROUNDS) : NotDone.new]
      end
    end
  end
end
