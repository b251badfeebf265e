# frozen_string_literal: true

require_relative "../core"
require_relative "../launch/local_server"
require_relative "../launch/session"
require_relative "../launch/starter"
require_relative "../load/options"
require_relative "../run/rounds"
require_relative "../support/clock"
require_relative "../support/format"
require_relative "confirmation"
require_relative "trial"

module Arena
  module Tune
    # The winners of each server's search, head to head: every finalist kept
    # up side by side (started and warmed once; a finalist whose search left
    # it running is taken over as it is), then rounds in which each runs one
    # load, in an order shuffled per round (Rounds, RMIT), so round i's
    # figures sit next to each other in time and their ratios cancel the
    # machine's drift (Stats.paired, in Answer). A finalist that fails to
    # start, or serves nothing in a round, is out, with its reason.
    class HeadToHead
      # One finalist: its server key, adapter (the winning settings), the
      # search's best candidate, its figures by round, and why it is out.
      Entry = Struct.new(:key, :adapter, :candidate, :rates, :failed, keyword_init: true)

      # A class body, not Struct.new's block: mutant skips methods defined in a closure.
      class Entry
        def alive? = failed.nil?
      end

      # One server's winner going in: its adapter (the winning settings), the
      # search's best candidate, its installation, and the session its
      # search left running (nil: started here).
      Finalist = Struct.new(:adapter, :candidate, :installation, :session, keyword_init: true)

      # rounds: how many to run at most; deadline: a round is begun only if
      # one more of the mean length fits.
      def initialize(plan:, store:, engine:, workload:, rounds:, deadline: nil, seed: 0, log: ->(_) {})
        @plan = plan
        @store = store
        @engine = engine
        @workload = workload
        @rounds = rounds
        @deadline = deadline
        @seed = seed
        @log = log
        @sessions = {}
      end

      # finalists: [Finalist] -> [Entry]
      def call(finalists)
        entries = finalists.each_with_index.map do |f, i|
          entry = Entry.new(key: f.adapter.key, adapter: f.adapter, candidate: f.candidate, rates: [])
          start(entry, f.installation, f.session, i)
          entry
        end
        run_rounds(entries)
        entries
      ensure
        @sessions.each_value(&:stop)
      end

      # How many rounds fit: what ran, against what was asked.
      def rounds_run(entries) = entries.select(&:alive?).map { |e| e.rates.size }.max || 0

      private

      def start(entry, installation, session, index)
        if session
          @sessions[entry.key] = session
          return
        end
        session = Launch::Session.new(plan: @plan, adapter: entry.adapter, index: 90 + index, starter: Launch::Starter.new(plan: @plan),
          engine: @engine, store: @store, installation: installation)
        session.start([@workload])
        session.warm_up(Scenarios::Steady.new, @workload, load: @plan.load)
        @sessions[entry.key] = session
      rescue Launch::LocalServer::Failed, Error => e
        session&.stop
        entry.failed = e.message
        @log.call("head to head: #{entry.key} did not start: #{e.message}")
      end

      def run_rounds(entries)
        spent = []
        @rounds.times do |i|
          alive = entries.select(&:alive?)
          break if alive.size < 2
          break if @deadline && !spent.empty? && Support::Clock.now + spent.sum / spent.size > @deadline
          started = Support::Clock.now
          Arena::Run::Rounds.order(alive, round: i + 1, seed: @seed).each { |entry| measure(entry, i + 1) }
          spent << Support::Clock.now - started
          @log.call("head to head: round #{i + 1}: #{alive.map { |e| "#{e.key} #{Support::Format.rps(e.rates.last.to_f)}" }.join(", ")} req/s")
        end
      end

      def measure(entry, round)
        m = Trial.round_measurement(@sessions.fetch(entry.key), workload: @workload, load: load, store: @store, repeat: round)
        figure = Trial.figure(m)
        entry.failed = Confirmation.failed_words(m.load, round, where: "head-to-head round") unless figure.positive?
        entry.rates << figure
      rescue Launch::LocalServer::Failed, Error => e
        entry.failed = "failed in head-to-head round #{round}: #{e.message}"
      end

      def load = Load::Options.new(**@plan.load.to_h, warmup_max: 0.0).freeze
    end
  end
end
