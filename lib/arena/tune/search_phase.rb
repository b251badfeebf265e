# frozen_string_literal: true

require_relative "../plan/envelope"
require_relative "../support/clock"
require_relative "head_to_head"
require_relative "not_done"
require_relative "search"
require_relative "triage"
require_relative "trial"

module Arena
  module Tune
    # The tune's searches: the leaders (Triage.searched) searched one after
    # another in the time left before the searches end, the rest kept at
    # their start; each server's best becomes a finalist, kept up for the
    # head to head. Each outcome goes to the output as it is known.
    class SearchPhase
      # finalists: each server's best (HeadToHead::Finalist); interrupted:
      # a search was; not_done: the searches cut short or not run.
      Searched = Struct.new(:finalists, :interrupted, :not_done, keyword_init: true)

      def initialize(ctx)
        @ctx = ctx
      end

      # looked: LookPhase's; yours: the key of the server the app runs today.
      def call(looked, yours:)
        looks = looked.looks
        starts = looks.to_h { |look| [look.adapter.key, look.start] }
        chosen = Triage.searched(starts, yours: yours)
        finalists = []
        not_done = NotDone.new
        looks.each_with_index do |look, i|
          outcome, skipped = outcome(look, chosen, starts, looked.searches_end, left: chosen.count { |key| looks[i..].any? { |l| l.adapter.key == key } })
          not_done += skipped + record(look, outcome, finalists)
          return Searched.new(finalists: finalists, interrupted: true, not_done: not_done).freeze if outcome.interrupted?
        end
        Searched.new(finalists: finalists, interrupted: false, not_done: not_done).freeze
      end

      private

      # [the look's outcome, NotDone]: searched in its share of the time left, or its start standing.
      def outcome(look, chosen, starts, searches_end, left:)
        if chosen.include?(look.adapter.key) && !look.space.empty? && Support::Clock.now < searches_end
          [search(look, deadline: Support::Clock.now + (searches_end - Support::Clock.now) / left), NotDone.new]
        else
          unsearched(look.adapter, look.start, starts)
        end
      end

      # The outcome into the output; its best a finalist, kept up. -> NotDone.
      def record(look, outcome, finalists)
        kept = look.trial.close(keep: outcome.best&.settings)
        @ctx.output.add(adapter: look.adapter, outcome: outcome, slo_ms: look.trial.slo_ms, unbounded: unbounded(look, outcome))
        @ctx.output.write
        if outcome.best
          finalists << @ctx.hold(HeadToHead::Finalist.new(adapter: Trial.configured(look.adapter, outcome.best.settings),
            candidate: outcome.best, installation: look.installation, session: kept))
        end
        (outcome.stopped == "time") ? NotDone.search_stopped(look.adapter.key, outcome.candidates.size) : NotDone.new
      end

      def search(look, deadline:)
        plan = @ctx.plan
        @ctx.detail "#{look.adapter.key}: searching #{look.space.dimensions.map { |d| "#{d.name} #{d.min}..#{d.max}" }.join(", ")} from #{look.space.start}"
        look.trial.deadline = deadline
        Search.new(space: look.space, evaluate: look.trial, deadline: deadline, cores: plan.machine.server_cores,
          rng: Random.new(plan.round_seed || Random.new_seed), measured: look.start ? {look.space.start => look.start} : {},
          round_s: plan.load.duration + 1.0).call
      end

      # A server not searched: its start stands, and why is said. -> [outcome, NotDone].
      def unsearched(adapter, start, starts)
        not_done = start&.qualifies? ? NotDone.not_searched(adapter.key, Triage.why_not(adapter.key, starts)) : NotDone.new
        outcome = Search::Outcome.new(candidates: start ? [start] : [], best: start&.qualifies? ? start : nil, noise: 0.03,
          stopped: unsearched_why(start), duels: []).freeze
        [outcome, not_done]
      end

      # Why a server's search did not run, in a word or two: no look reached it, its start failed, or it was not chosen.
      def unsearched_why(start)
        return Search::NOT_LOOKED unless start
        start.qualifies? ? "not searched" : "failed"
      end

      # What the envelope costs: the winner once more, the same config
      # without the envelope, judged by the same SLO (lib/arena/plan/envelope.rb).
      def unbounded(look, outcome)
        adapter = look.adapter
        return nil unless adapter.envelope.bounded? && outcome.best && !outcome.interrupted?
        @ctx.say "#{adapter.key}: the winner without its envelope (#{adapter.envelope}), for what the envelope costs"
        slo_ms = look.trial.slo_ms
        load = @ctx.plan.load
        load = load.with(slo_ms: slo_ms) if slo_ms && !load.slo_ms
        trial = @ctx.trial(plan: @ctx.plan.with(load: load), adapter: adapter.rebuilt(envelope: Plan::Envelope::NONE), installation: look.installation)
        trial.call(outcome.best.settings).tap { trial.close }
      end
    end
  end
end
