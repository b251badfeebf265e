# frozen_string_literal: true

require_relative "../support/format"
require_relative "limits"
require_relative "verdict"

module Arena
  module Verdicts
    # What a profile's spike did to its own requests (by their intended
    # time, so a request that waited counts where it was asked):
    #
    # - shed: more than Limits::ERROR_LIMIT_PCT of the requests the spike
    #   asked for failed (errors, timeouts included);
    # - queued: they were answered late: their p90 beyond both twice the p90
    #   of the stage before and that plus 1 ms (a busy machine moves a
    #   sub-millisecond p90 by more than half), or more than that share of
    #   them still waited when the run ended (never sent for want of a free
    #   connection, which the engine counts dropped, or in flight): cut off
    #   by the run's end, which is not shed;
    # - both, or "absorbed".
    #
    # The loader can make the queue itself: its C connections pass at most
    # C / T requests a second of service time T (the stage before's p50).
    # When the spike asked more than that and the server served about that
    # much, the queue formed in the loader and nothing is said of the server
    # but that, and how to see past it.
    #
    # Goodput alone cannot tell a queue: a server over its capacity answers
    # at its capacity all along, and after the spike it drains the backlog
    # at that rate, so its throughput never dips. The reason therefore gives
    # the most the server served in any window as long as the spike
    # (`peak_good_rps`: its capacity when it was over) and, for a queue, how
    # long after the spike the p99 of what it answered was back to its level
    # before (`drained_s`, nil if not within `after_s`). Pure: figures in, a
    # Verdict out.
    module Spike
      # error_kinds: the kinds of error seen from the spike's start to the
      # end of the stage after it (by completion time), names only;
      # connections: the loader's; before_p50_us: the stage before's p50.
      Figures = Struct.new(:label, :asked_rps, :asked, :good, :errors, :dropped, :error_kinds, :before_p90_us, :before_n, :spike_p90_us,
        :spike_n, :peak_good_rps, :drained_s, :after_s, :connections, :before_p50_us, keyword_init: true)

      QUEUE_X = 2.0
      QUEUE_MIN_US = 1_000
      P90_MIN = Limits::PERCENTILE_MIN_SAMPLES.fetch(:p90)
      # Served at least this share of the loader's cap: the cap was the limit.
      AT_CAP = 0.9

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      def verdict(f)
        asked = f.asked.round
        return Verdicts::Verdict.cannot_judge("#{f.label} asked for no request") unless asked.positive?
        cap = cap(f)
        return Verdicts::Verdict.cannot_judge(capped(f, cap)) if cap && f.asked_rps > cap && f.peak_good_rps.to_f >= AT_CAP * cap
        errors = f.errors.to_i
        # More answered than asked (a request of the stage before answered in
        # it) makes this negative: not over the limit, not said.
        cut = asked - f.good.to_i - errors
        shed = over?(errors, asked)
        queued = over?(cut, asked) || queued?(f)
        return Verdicts::Verdict.of("shed", reason(f, asked, cut, nil)) if shed && queued.nil?
        return Verdicts::Verdict.cannot_judge(why_not(f)) if queued.nil?
        word = if shed && queued then "queued and shed"
        elsif shed then "shed"
        elsif queued then "queued"
        else "absorbed"
        end
        Verdicts::Verdict.of(word, reason(f, asked, cut, queued))
      end

      def over?(count, asked) = 100.0 * count / asked > Limits::ERROR_LIMIT_PCT

      # The most the loader's connections pass a second, or nil unknown.
      def cap(f) = (f.connections * 1e6 / f.before_p50_us if f.connections.to_i.positive? && f.before_p50_us.to_f.positive?)

      def capped(f, cap)
        "the loader's #{f.connections} connections pass at most #{num(cap)}/s (#{f.connections} / #{us(f.before_p50_us)}), " \
          "under the #{num(f.asked_rps)}/s asked, and the server served at most #{num(f.peak_good_rps)}/s: the queue formed " \
          "in the loader, not the server; a profile with more connections (-c #{(f.asked_rps * f.before_p50_us / 1e6 * 1.5 / 4).ceil} " \
          "or more: a profile opens four per -c) tells"
      end

      # true, false, or nil when either stage has too few good responses for a p90.
      def queued?(f)
        return nil unless f.before_n.to_i >= P90_MIN && f.spike_n.to_i >= P90_MIN && f.before_p90_us && f.spike_p90_us
        f.spike_p90_us > [QUEUE_X * f.before_p90_us, f.before_p90_us + QUEUE_MIN_US].max
      end

      def why_not(f)
        return "the stage before the spike has #{f.before_n.to_i} good responses, a p90 needs #{P90_MIN}" if f.before_n.to_i < P90_MIN
        "the spike has #{f.spike_n.to_i} good responses, a p90 needs #{P90_MIN}"
      end

      def reason(f, asked, cut, queued)
        parts = ["asked #{num(f.asked_rps)}/s for #{num(f.asked / f.asked_rps)} s, served at most #{num(f.peak_good_rps)}/s"]
        unless queued?(f).nil?
          parts << "its requests' p90 #{us(f.spike_p90_us)} against #{us(f.before_p90_us)} before (x#{format("%.1f", f.spike_p90_us.fdiv(f.before_p90_us))})"
        end
        errors = f.errors.to_i
        parts << if errors.zero?
          "none of #{asked} shed"
        else
          # Only interpolated: nil reads as nothing.
          kinds = (": #{f.error_kinds.join(", ")}" unless Array(f.error_kinds).empty?)
          "#{errors} of #{asked} shed (errors#{kinds})"
        end
        if cut.positive?
          parts << "#{cut} of #{asked} cut off by the run's end (#{f.dropped.to_i} never sent for want of a free connection, " \
            "#{[cut - f.dropped.to_i, 0].max} in flight): waiting, not shed"
        end
        parts << drained(f) if queued
        parts.join("; ")
      end

      def drained(f)
        return "the queue drained (p99 back to its level before) #{num(f.drained_s)} s after the spike" if f.drained_s
        "the queue had not drained (p99 not back to its level before) within the #{num(f.after_s)} s measured after"
      end

      def num(x) = format("%g", x.to_f.round(1))

      def us(value) = Support::Format.duration_us(value)
    end
  end
end
