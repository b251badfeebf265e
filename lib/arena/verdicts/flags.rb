# frozen_string_literal: true

require_relative "batching"
require_relative "concurrency"
require_relative "limits"
require_relative "pool_exhaustion"
require_relative "stall"
require_relative "tail_stall"
require_relative "verdict"

module Arena
  module Verdicts
    # The flags a measurement's summary carries, each from one rule:
    # `flag(figures) -> Verdict | nil`, where the Verdict's word is the flag
    # and its reason what the reports say of it. RULES is the order the flags
    # are recorded in. Adding a verdict: its file here in verdicts/ with a
    # `flag`, its entry in RULES, and its test.
    module Flags
      # What the rules read of one measurement. load: its Results::LoadFigures;
      # queue: the app's split (QueueSplit) or nil; slots: the config's
      # declared slots (nil: no fixed ceiling); service_us: the request's
      # unloaded latency; spread: {pid => connections held} (Probes::Spread)
      # or nil; processes: the workers that each accept their own connections.
      # The stall, concurrency and batching figures are worked out once and
      # shared by the rules that read them.
      Figures = Struct.new(:load, :settled, :loader_cpu_pct, :server_cpu_pct, :server_cores, :noisy, :envelope, :pool,
        :queue, :slots, :service_us, :fault, :spread, :processes, keyword_init: true) do
        def cpu = {server_cpu_pct: server_cpu_pct, server_cores: server_cores}

        def stall
          @stall ||= Stall.verdict(load.stall_figures(**cpu, queue: queue, slots: slots, service_us: service_us, noisy: noisy))
        end

        def concurrency
          @concurrency ||= Concurrency.call(load.concurrency_figures(**cpu, queue: queue, slots: slots,
            spread: spread&.values, processes: processes))
        end

        def batching = @batching ||= load.batching_figures(queue: queue, slots: slots, **cpu)

        def stalled? = stall.word == "stalled"
      end

      # A scenario's own fault (crash, restart): its word and reason as it gave them.
      module Fault
        def self.flag(f) = f.fault
      end

      module Noisy
        def self.flag(f) = (Verdict.of("noisy") if f.noisy)
      end

      module OomKilled
        def self.flag(f) = (Verdict.of("oom-killed") if f.envelope&.oom_killed?)
      end

      module Errors
        # A hung server's unanswered requests count in error_pct; its flag is "unanswered", not this.
        def self.flag(f)
          load = f.load
          Verdict.of("errors") if load.error_pct > Limits::ERROR_LIMIT_PCT && !(load.unanswered? && load.errors.zero?)
        end
      end

      module Unanswered
        def self.flag(f) = (Verdict.of("unanswered") if f.load.unanswered?)
      end

      module LoaderBound
        def self.flag(f) = (Verdict.of("loader-bound") if f.loader_cpu_pct && f.loader_cpu_pct > Limits::LOADER_BUSY_PCT)
      end

      module DidNotSettle
        def self.flag(f) = (Verdict.of("did-not-settle") unless f.settled)
      end

      module FewSamples
        def self.flag(f) = (Verdict.of("few-samples") unless f.load.latency.supported?(:p99))
      end

      module ServerClosed
        def self.flag(f) = (Verdict.of("server-closed") if f.load.server_closed?)
      end

      RULES = [Fault, Noisy, OomKilled, PoolExhaustion, Errors, Unanswered, LoaderBound, DidNotSettle, FewSamples,
        ServerClosed, Stall, TailStall, Concurrency::Uneven, Concurrency::Under, Batching].freeze

      # The verdicts that flagged, in RULES' order.
      def self.of(figures, rules: RULES) = rules.filter_map { |rule| rule.flag(figures) }
    end
  end
end
