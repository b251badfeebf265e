# frozen_string_literal: true

require_relative "stall"
require_relative "verdict"

module Arena
  module Verdicts
    # Answers held in batches: the app's split says each request left the app
    # long before its answer reached the client, while Little's law says the
    # slots stayed busy (so not a stall: lib/arena/verdicts/stall.rb). Thin with
    # one slot runs every request its event loop read, 50 ms each, and writes
    # their answers only when the loop turns: 725 ms after the app, on average,
    # at 32 connections. A round counts the answers that arrived in it, so the
    # ones held at its start and end move its count by up to that hold over the
    # round's length: Thin read 14-21 of its 20 req/s in 3 s rounds. For a
    # closed loop Little's law gives the rate the count cannot: connections ÷
    # the mean latency (Thin: 19.6-19.9 in the same rounds).
    # Pure: Figures in, a Verdict out.
    module Batching
      # latency_mean_us: the good answers' mean latency; waiting_mean_us and
      # working_mean_us: the app's split; duration_s: the round's counted time.
      # slots: the config's declared slots (nil: none); server_cpu_pct and
      # server_cores: how busy its cores were.
      Figures = Struct.new(:good_rps, :latency_mean_us, :waiting_mean_us, :working_mean_us, :connections, :duration_s,
        :open_model, :slots, :server_cpu_pct, :server_cores, keyword_init: true)

      # Unexplained time this large a share of the mean latency, and at least
      # FLOOR_US (the stall rule's thresholds)...
      SHARE = 0.2
      FLOOR_US = 20_000
      # ...that moves a round's count by at least this share.
      EDGE = 0.05

      extend self

      # The summary's flag (Flags::RULES); a stalled measurement is not also batched.
      def flag(f) = call(f.batching, stalled: f.stalled?).then { |v| v if v.word == "batched" }

      # Little's law on a closed loop: every connection always has one request
      # in the system, so throughput = connections ÷ mean time in it. nil for
      # an open model or nothing answered.
      def loop_rps(f)
        return nil if f.open_model || !f.latency_mean_us.to_f.positive? || !f.connections.to_i.positive?
        (f.connections * 1e6 / f.latency_mean_us).round(1)
      end

      # stalled: the stall rule's word for the same figures (a stall idles the
      # slots; this keeps them busy).
      def call(f, stalled: false)
        return Verdicts::Verdict.cannot_judge("no waiting/working means (--queue-time on)") unless f.waiting_mean_us && f.working_mean_us
        return Verdicts::Verdict.cannot_judge("no answers") unless f.latency_mean_us.to_f.positive? && f.good_rps.to_f.positive?
        return Verdicts::Verdict.cannot_judge("no counted time") unless f.duration_s.to_f.positive?
        held = f.latency_mean_us - f.waiting_mean_us - f.working_mean_us
        edge = held / (f.duration_s.to_f * 1e6)
        unless !stalled && held >= [FLOOR_US, SHARE * f.latency_mean_us].max && edge >= EDGE
          return Verdicts::Verdict.of("ok", "answers left #{ms(held)} after the app (mean)")
        end
        # A busy core is the wait: eight threads on one core spinning 10 ms
        # each wait for it to write their answers (Puma held them 129 ms).
        share = f.server_cpu_pct && f.server_cpu_pct / (100.0 * [f.server_cores.to_i, 1].max)
        if share && share >= Verdicts::Stall::BUSY_CPU
          return Verdicts::Verdict.of("ok", "answers left #{ms(held)} after the app while the server used #{(share * 100).round}% of its " \
            "cores: waiting for a core, not held")
        end
        loop = loop_rps(f)
        Verdicts::Verdict.of("batched", "answers reached the client #{ms(held)} after the app returned (mean of #{ms(f.latency_mean_us)}), " \
          "while the slots stayed busy: the server writes them in batches, so a #{f.duration_s.round(1)} s round counts up to " \
          "±#{(edge * 100).round}% (about #{(f.good_rps * held / 1e6).round} answers held at either end)" \
          "#{"; Little's law on the loop, #{f.connections} connections ÷ #{ms(f.latency_mean_us)}, reads #{loop} req/s" if loop}" \
          "#{own(f, loop)}")
      end

      # Where every slot was busy, each turns once per slots ÷ rate: what that
      # turn holds beyond the app's work is the server's own time per request,
      # in series with the app (Thin's one event loop: 1.6 ms a request alone
      # on its core, 3.4-9 ms with eleven other servers up beside it).
      def own(f, loop)
        return "" unless loop && f.slots.to_i.positive? && f.slots.to_i <= f.connections.to_i
        turn_us = f.slots * 1e6 / loop
        return "" unless turn_us > f.working_mean_us
        "; each slot turns every #{ms(turn_us)} for #{ms(f.working_mean_us)} of the app's work: " \
          "#{ms(turn_us - f.working_mean_us)} a request is spent outside the app, by the server itself"
      end

      def ms(us) = "#{format("%.1f", us / 1000.0)} ms"
    end
  end
end
