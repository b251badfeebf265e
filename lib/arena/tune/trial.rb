# frozen_string_literal: true

require_relative "../core"
require_relative "../launch/local_server"
require_relative "../launch/session"
require_relative "../launch/starter"
require_relative "../plan/runtime"
require_relative "../support/clock"
require_relative "../support/format"
require_relative "../support/short"
require_relative "../verdicts/limits"
require_relative "answer_words"
require_relative "candidate"
require_relative "space"

module Arena
  module Tune
    # Measures one configuration for the search: a Launch::Session with these
    # settings (start, verify the workload, record), the sustained scenario
    # (closed maximum, then the bisection of open rates), stop.
    # Every server record and measurement goes to the results store as in
    # `arena run`, so `arena report` and `arena compare` read a tune run.
    class Trial
      # The p99 objective every candidate of this server was judged by.
      attr_reader :slo_ms

      # When this server's share of the time ends (its first look, then its search).
      attr_writer :deadline

      # adapter: the server as given (its other settings and runtime are kept).
      def initialize(plan:, adapter:, installation:, workload:, store:, engine:, starter:, memory_kb:, deadline: nil, log: ->(_) {}, scenario: Scenarios::Sustained,
        steps: LOOK_STEPS)
        @plan = plan
        @adapter = adapter
        @installation = installation
        @workload = workload
        @store = store
        @engine = engine
        @starter = starter
        @memory_kb = memory_kb
        @deadline = deadline
        @log = log
        @scenario = scenario
        @steps = steps
        @baselines = {}
        @count = 0
        @kept = {} # settings => Launch::Session kept up for duels, least recently used first
      end

      # A first look's open levels at most: 90% of the closed maximum, then
      # 100% (and 95%) or halving (45%, 22.5%, 11%) on a busy machine. It
      # says whether the config holds a rate within the SLO and the memory
      # budget, and gives the model its figures; the duels rank.
      LOOK_STEPS = 4

      # The configs kept up at once: a duel's two and the next look.
      KEPT = 3

      # One more figure of a config for a duel (Search#duel): its goodput
      # under the closed model for one load of the plan's duration, on the
      # config kept up (started and warmed once; the two configs of a duel
      # stay up side by side, so a round costs one load, not a boot). A
      # round over the error limit, or a config that fails, counts 0.
      def round(settings)
        session = @kept.delete(settings) || keep(settings)
        @kept[settings] = session
        Trial.round_figure(session, workload: @workload, load: round_load, store: @store, repeat: @count += 1)
      rescue Launch::LocalServer::Failed, Error => e
        @log.call(AnswerWords.fit("#{@adapter.key} #{Trial.words(settings)}: a round failed: #{e.message}"))
        @kept.delete(settings)&.stop
        0.0
      end

      # One load of a config kept up, stored: its goodput, or 0 over the error limit.
      def self.round_figure(session, workload:, load:, store:, repeat:)
        figure(round_measurement(session, workload: workload, load: load, store: store, repeat: repeat))
      end

      # One load of a config kept up, stored: its measurement.
      def self.round_measurement(session, workload:, load:, store:, repeat:)
        session.run(Scenarios::Steady.new, workload, load: load).first.with(repeat: repeat).tap { |m| store.add_measurement(m) }
      end

      # A round's figure: its goodput, or 0 over the error limit.
      def self.figure(m) = (m.load&.error_pct.to_f > Verdicts::Limits::ERROR_LIMIT_PCT) ? 0.0 : m.good_rps

      # The adapter with these settings; runtime dimensions (yjit, jemalloc)
      # go to its runtime, over the one it was given.
      # Settings as a person reads them: "workers=2 threads=4", or "its defaults".
      def self.words(settings) = settings.empty? ? "its defaults" : settings.map { |k, v| "#{k}=#{v}" }.join(" ")

      def self.configured(adapter, settings)
        changes = Space.adapter_settings(settings).transform_values(&:to_s)
        runtime = adapter.runtime.merge(Plan::Runtime.parse(Space.runtime_tokens(settings)))
        adapter.class.new(settings: adapter.settings.merge(changes), machine: adapter.machine, runtime: runtime, envelope: adapter.envelope)
      end

      # Stops the configs kept up for duels, but for `keep`'s (the search's
      # winner, which goes on to the head to head): its session, or nil.
      def close(keep: nil)
        kept = keep && @kept.delete(keep)
        @kept.each_value(&:stop)
        @kept.clear
        kept
      end

      # A config that ran Rails' connection pool dry, or was OOM-killed in
      # its envelope, does not qualify, whatever rate it held: said why.
      # The rule on values (the candidate and its measurements' records).
      def self.fits(candidate, measurements)
        bounded = measurements.filter_map(&:envelope)
        if bounded.any?
          candidate = candidate.with(throttled_pct: bounded.map(&:throttled_pct).max, cgroup_peak_mib: bounded.filter_map(&:peak_mib).max)
        end
        pool = measurements.find { |m| m.summary&.pool }
        return candidate.with(status: "pool-exhausted", why: pool.summary.pool) if pool
        killed = measurements.select { |m| m.envelope&.oom_killed? }
        return candidate unless killed.any?
        e = killed.first.envelope
        candidate.with(status: "oom-killed", why: "#{killed.sum { |m| m.envelope.oom_kills }} OOM kill(s) under the envelope's " \
          "#{e.memory_mib&.round} MiB (first in #{killed.first.label}, at #{e.oom_at_s.first} s)")
      end

      # The candidate from the sustained scenario's figures (x): unsustained
      # when no rate held, over-memory when its PSS under that load is over
      # the budget, else ok. The rule on values.
      def self.candidate(x, settings:, label:, memory_kb:)
        pss_kb = x.pss_mib && (x.pss_mib * 1024).round
        status = if x.sustained_rps.to_f <= 0 then "unsustained"
        elsif pss_kb && pss_kb > memory_kb then "over-memory"
        else "ok"
        end
        why = {"unsustained" => "no open-model rate held p99 <= #{x.slo_ms} ms with < 1% errors",
               "over-memory" => "PSS #{x.pss_mib} MiB over the #{(memory_kb / 1024.0).round} MiB budget"}[status]
        Candidate.new(settings: settings, label: label, sustained_rps: x.sustained_rps.to_f, closed_rps: x.closed_max_rps.to_f,
          p99_ms: x.p99_ms, pss_kb: pss_kb, closed_pss_kb: x.closed_pss_mib && (x.closed_pss_mib * 1024).round,
          error_pct: x.error_pct, mean_ms: x.mean_ms, service_ms: x.service_ms || x.unloaded_ms, cpu_pct: x.closed_cpu_pct, resolution: x.resolution,
          status: status, why: why, rates: [x.sustained_rps.to_f]).freeze
      end

      # A first look: the config started (on a starter of its own) and
      # measured by the scenario. A config that qualifies stays up for the
      # duel that follows (the search releases it when it loses); one that
      # does not is stopped.
      def call(settings)
        started = Support::Clock.now
        @kept.delete(settings)&.stop
        evict
        @count += 1
        session = Launch::Session.new(plan: @plan, adapter: configured(settings), index: @count, starter: Launch::Starter.new(plan: @plan),
          engine: @engine, store: @store, installation: @installation, baselines: @baselines)
        candidate = measure(session, settings)
        @kept[settings] = session if candidate.qualifies?
        candidate.with(elapsed_s: (Support::Clock.now - started).round(2), rates: [candidate.sustained_rps.to_f])
      rescue Launch::LocalServer::Failed, Error => e
        why = session&.fail(e.message, log_tail: e.is_a?(LoggedError) ? e.log_tail : nil)&.error || e.message
        Candidate.failed(settings, why, elapsed_s: (Support::Clock.now - started).round(2)).tap { |c| say(c) }
      ensure
        session&.stop unless session && @kept[settings].equal?(session)
      end

      # A config the search has done with (it lost its duel): stopped.
      def release(settings) = @kept.delete(settings)&.stop

      private

      # A session of its own for a config a duel keeps up, the least recently
      # used beyond KEPT stopped first.
      def keep(settings)
        evict
        @count += 1
        session = Launch::Session.new(plan: @plan, adapter: configured(settings), index: @count, starter: Launch::Starter.new(plan: @plan),
          engine: @engine, store: @store, installation: @installation, baselines: @baselines)
        session.start([@workload])
        session.warm_up(Scenarios::Steady.new, @workload, load: @plan.load)
        session
      rescue Launch::LocalServer::Failed, Error
        session&.stop
        raise
      end

      # Room for one more config kept up: the least recently used beyond KEPT stopped.
      def evict
        @kept.shift.last.stop while @kept.size >= KEPT
      end

      def round_load = load.with(warmup_max: 0.0)

      def configured(settings) = Trial.configured(@adapter, settings)

      def measure(session, settings)
        session.start([@workload])
        measurements = session.run(@scenario.new(steps: @steps), @workload, load: load).map { |m| m.with(repeat: 1) }
        @slo_ms ||= @scenario.figures_of(measurements.last).slo_ms
        measurements.each { |m| @store.add_measurement(m) }
        x = @scenario.figures_of(measurements.last)
        Trial.fits(Trial.candidate(x, settings: settings, label: session.adapter.label, memory_kb: @memory_kb), measurements).tap { |c| say(c) }
      end

      # The plan's load, its unit bounded by what is left of this server's
      # share (the sustained scenario bounds its open steps by it), at most
      # the whole tune's --max-time, which stays as the user gave it.
      #
      # Without --slo the relative default (3 x unloaded p99, at least 100 ms)
      # is taken on the first candidate (the heuristic start) and held for
      # every other: each config is judged against the same bar.
      def load
        changes = {}
        changes[:slo_ms] = @slo_ms if @slo_ms && @plan.load.slo_ms.nil?
        load = changes.empty? ? @plan.load : @plan.load.with(**changes)
        @deadline ? load.unit_bounded((@deadline - Support::Clock.now).clamp(5.0, [@plan.load.max_time, 5.0].max)) : load
      end

      # One line per candidate: the server, its settings and what it sustained.
      def say(c)
        figures = if c.qualifies?
          "sustains #{Support::Format.rps(c.sustained_rps)} req/s, p99 #{Support::Short.sig(c.p99_ms.to_f)} ms, PSS #{Support::Short.sig(c.pss_mib.to_f)} MiB"
        else
          "#{c.status}: #{c.why}"
        end
        @log.call(AnswerWords.fit("#{@adapter.key} #{Trial.words(c.settings)}: #{figures} (closed max #{Support::Format.rps(c.closed_rps.to_f)} req/s)"))
      end
    end
  end
end
