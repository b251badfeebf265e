# frozen_string_literal: true

require_relative "../support/clock"
require_relative "../support/format"
require_relative "not_done"
require_relative "space"

module Arena
  module Tune
    # The tune's looks: every server's documented start measured once, each
    # in its share of the time before the searches end (a server not
    # installed is noted in the output and left out; one that needs a front
    # to run more processes is looked at in its single-process config).
    class LookPhase
      # A server's first look: its searchable space, installation, the trial
      # that measures its configs, and its start's candidate (nil if none).
      Look = Struct.new(:adapter, :space, :installation, :trial, :start, keyword_init: true)

      # looks: in the plan's order; searches_end: when the searches must end;
      # not_done: the servers no look reached.
      Looked = Struct.new(:looks, :searches_end, :not_done, keyword_init: true)

      def initialize(ctx)
        @ctx = ctx
      end

      # time: the TimeBudget, started; yours: the baseline's server, looked
      # at first (staying on it is an answer of its own). -> Looked.
      def call(time, yours: nil)
        searchable = LookPhase.yours_first(@ctx.plan.servers, yours).filter_map { |adapter| searchable(adapter) }
        searches_end = time.searches_end(searchable.size)
        share = LookPhase.share(searches_end - Support::Clock.now, searchable.size, time.look_s.to_f)
        not_done = NotDone.new
        spent = []
        looks = searchable.map do |adapter, space, installation|
          look = Look.new(adapter: adapter, space: space, installation: installation,
            trial: @ctx.trial(adapter: adapter, installation: installation, deadline: Support::Clock.now + share))
          next look.tap { not_done += NotDone.not_looked(adapter.key) } unless LookPhase.fits?(spent, searches_end)
          started = Support::Clock.now
          look.tap { look.start = first_look(look) }.tap { spent << Support::Clock.now - started }
        end
        Looked.new(looks: looks, searches_end: searches_end, not_done: not_done).freeze
      end

      # A look's time: an equal part of what is left for `count` looks, but
      # never under the least look (`least_s`) that says whether its config
      # holds a rate; a budget too short for every look cuts the last ones
      # (.fits?) instead of giving each too little to say anything.
      def self.share(left_s, count, least_s) = [left_s / [count, 1].max, least_s].max

      # The servers in the plan's order, the one named `yours` first.
      def self.yours_first(servers, yours) = servers.partition { |a| a.key == yours }.flatten(1)

      # Whether one more look, as long as the looks so far on average, ends
      # before `ends`: a slow app's last look began just before the end and
      # ran a minute into the confirmation's rounds.
      def self.fits?(spent, ends, now: Support::Clock.now) = now + (spent.empty? ? 0.0 : spent.sum / spent.size) < ends

      private

      def first_look(look)
        start = look.space.start
        @ctx.detail "#{look.adapter.key}: #{start.empty? ? "its only config (nothing to tune)" : "its start #{words(start)} (#{look.adapter.class.tune_start&.source})"}"
        look.trial.call(start)
      end

      def words(settings) = Support::Format.pairs(settings)

      # [adapter, its space, its installation], or nil with the reason noted in the output.
      def searchable(adapter)
        space = @ctx.space_for(adapter)
        installation = adapter.class.install(@ctx.plan.app)
        unless installation.found
          @ctx.output.add(adapter: adapter, note: "not installed (#{installation.why})")
          return nil
        end
        return [adapter, space, installation] unless adapter.class.tune_needs_front? && !@ctx.plan.front
        # Its single-process config: more processes listen on more ports, which need --front nginx.
        single = Space.new(dimensions: space.dimensions.map { |d| Dimension.new(name: d.name, min: d.min, max: d.min).freeze })
        @ctx.say "#{adapter.key}: at its single-process config (#{words(single.start)}): more need --front nginx"
        [adapter, single, installation]
      end
    end
  end
end
