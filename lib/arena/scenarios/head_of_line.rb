# frozen_string_literal: true

require_relative "../load/settings"
require_relative "../plan/workloads"
require_relative "../verdicts/head_of_line"
require_relative "base"

module Arena
  module Scenarios
    # Fast requests alone, then with a slow request beside them at
    # --slow-share (default 10% /sleep?ms=200 on the built-in app; a mix's
    # slowest request, by its unloaded latency; or --slow-request PATH). The
    # fast requests' own p50 and p99 (the engine's per-request histograms)
    # before and after say how well the server keeps a slow request from
    # holding up fast ones: threads and fibers go on serving, a process busy
    # with the slow one cannot.
    #
    # Both runs are open-model, at the same arrival rate for every config:
    # the rate that keeps one slow request in flight on average (1 / (share x
    # the slow request's unloaded latency): 50 req/s for 10% of 200 ms), which
    # any server with two workers or threads can serve; never more than half
    # of what the fast requests reach alone in a closed loop (measured first),
    # where the "slow" request is hardly slower. A closed loop would
    # not do: its connections pile up on the slow requests (each holds one
    # 200 times as long), so every config ends up waiting on them.
    class HeadOfLine < Base
      scenario "head-of-line", "fast requests alone, then beside a slow one at --slow-share (default 10% /sleep?ms=200): the fast ones' p50/p99 inflation"
      setting :slow_request, flag: "--slow-request PATH", type: String, check: Load::PATH,
        help: "head-of-line: the slow request beside the fast one (default /sleep?ms=200 on the built-in app, a mix's slowest request)"
      setting :slow_share, flag: "--slow-share PCT", type: Float, default: 10.0, check: 0.1..90,
        help: "head-of-line: the slow request's share of the requests, in percent"

      SLOW_DEFAULT = "/sleep?ms=200"
      SLOW_NAME = "slow"

      def planned(_load, _adapter) = 3

      def call(ctx)
        fast, slow = split(ctx)
        return [summary_record(ctx, "not applicable", {"reason" => slow})] unless fast
        share = ctx.load.slow_share
        slow_s = Context.new(session: ctx.session, workload: slow, load: ctx.load).baseline&.p50_us.to_f / 1e6
        return [summary_record(ctx, "not applicable", {"reason" => "the slow request #{slow.path} did not answer unloaded"})] unless slow_s.positive?
        closed = run(ctx, fast, "fast closed", nil, nil)
        rate = [self.class.rate(share, slow_s), (closed.good_rps / 2).round(1)].min
        return [closed, summary_record(ctx, "not applicable", {"reason" => "the fast requests alone served nothing"})] unless rate.positive?
        # At least 150 fast responses in each run, for a p99.
        duration = [ctx.load.duration, (150 / (rate * (1 - share / 100))).ceil].max.to_f
        mixed = beside(fast, slow, share)
        alone = run(ctx, fast, "alone", rate, duration)
        next_to = run(ctx, mixed, "beside #{format("%g", share)}% slow", rate, duration)
        names = mixed.mix_names
        fast_names = names[0...-1]
        figures = fast_names.map do |name|
          before = fast.mix? ? alone.load.requests&.find { |r| r.name == name }&.latency : alone.load.latency
          after = next_to.load.requests&.find { |r| r.name == name }&.latency
          self.class.point(name, before, after)
        end
        slow_after = next_to.load.requests&.find { |r| r.name == names.last }
        extra = {"slow" => slow.path, "share_pct" => share, "rate" => rate, "fast_closed_rps" => closed.good_rps.round(1), "slow_unloaded_us" => (slow_s * 1e6).round, "fast" => figures,
                 "slow_good" => slow_after&.good, "slow_p50_us" => slow_after&.latency&.p50, "beside_error_pct" => next_to.load.error_pct}
        [closed, alone, next_to, summary_record(ctx, "inflation", extra)]
      end

      # Arrivals that keep one slow request in flight on average.
      def self.rate(share_pct, slow_s) = (1.0 / (share_pct / 100.0 * slow_s)).round(1).clamp(1.0, 100_000.0)

      # One fast request's figures alone and beside the slow one.
      def self.point(name, before, after)
        {"request" => name, "alone_n" => before&.n.to_i, "alone_p50_us" => before&.p50, "alone_p99_us" => before&.at(:p99),
         "beside_n" => after&.n.to_i, "beside_p50_us" => after&.p50, "beside_p90_us" => after&.at(:p90), "beside_p99_us" => after&.at(:p99),
         "p50_x" => ratio(after&.p50, before&.p50), "p99_x" => ratio(after&.at(:p99), before&.at(:p99)),
         "tail_x" => ratio(after&.at(:p90), before&.p50)}
      end

      def self.ratio(after, before) = (after && before.to_f.positive?) ? (after.to_f / before).round(2) : nil

      # [workload, Verdicts::HeadOfLine::Entry] per head-of-line summary, each with
      # the stall reason of any measurement of its config and workload (its
      # own closed run, or another scenario's): the open-model runs cannot be
      # judged stalled themselves.
      # A config's error share is the most its head-of-line runs failed in
      # that round where any was flagged failed or hung (errors, unanswered),
      # else the one recorded beside the slow request: a config that failed
      # never wins on the ratio of the responses it did give, whether or not
      # its summary record carries the share (older records do not).
      def self.entries(measurements)
        stalls = measurements.select { |m| m.flags.include?("stalled") }.group_by { |m| [m.server, m.workload] }
        failed = measurements.select { |m| m.scenario == key && m.measured? && m.summary&.erroneous? }
          .group_by { |m| [m.server, m.workload, m.repeat] }
        measurements.select { |m| m.scenario == key && m.summary? && !m.extra["reason"] }.map do |m|
          stall = stalls[[m.server, m.workload]]&.first
          flagged = failed[[m.server, m.workload, m.repeat]]&.map { |f| f.summary.error_pct.to_f }&.max
          [m.workload, Verdicts::HeadOfLine::Entry.new(server: m.server, fast: m.extra["fast"], stalled: stall && (stall.summary.stall || "stalled"),
            round: m.repeat, error_pct: flagged || m.extra["beside_error_pct"]).freeze]
        end
      end

      private

      # [fast workload, slow workload], or [nil, why not].
      def split(ctx)
        wl = ctx.workload
        if ctx.load.slow_request
          path = ctx.load.slow_request
          return [wl, Plan::Workload.new(name: SLOW_NAME, path: path, method: "GET", content_type: nil, expect_status: 200).freeze]
        elsif wl.mix?
          return [nil, "a mix of one request has nothing slow beside its fast requests (--slow-request PATH)"] if wl.mix.size < 2
          slowest = wl.mix.max_by { |_, member| Context.new(session: ctx.session, workload: member, load: ctx.load).baseline&.p50_us.to_i }.last
          rest = wl.mix.reject { |_, member| member.equal?(slowest) }
          return [wl.dup.tap { |w|
            w.name = "#{wl.name}-fast"
            w.mix = rest.freeze
          }.freeze, slow_workload(slowest)]
        elsif ctx.session.plan.app.builtin
          return [wl, slow_workload(Plan::Workloads.builtin.fetch("sleep").dup.tap { |w|
            w.path = SLOW_DEFAULT
            w.expect_body = "slept 200 ms"
          })]
        end
        [nil, "no slow request to put beside #{wl.path}: give one with --slow-request PATH"]
      end

      def slow_workload(wl) = wl.dup.tap { |w| w.name = SLOW_NAME }.freeze

      # The fast requests at (100 - share)% of the weight, the slow one at share%.
      def beside(fast, slow, share)
        members = fast.mix? ? fast.mix : [[1, fast]]
        total = members.sum(&:first).to_f
        weights = members.map { |w, member| [[((100 - share) * 100 * w / total).round, 1].max, member] }
        mix = (weights + [[[(share * 100).round, 1].max, slow]]).freeze
        first = mix.first.last
        Plan::Workload.new(name: "#{fast.name}+#{SLOW_NAME}", path: first.path, method: first.method, body: mix.map(&:last).filter_map(&:body).first,
          content_type: nil, expect_status: nil, expect_body: nil, headers: first.headers, mix: mix).freeze
      end

      # Open-model at rate for duration; closed (-c, -d as given) without a rate.
      def run(ctx, workload, variant, rate, duration)
        sub = Context.new(session: ctx.session, workload: workload, load: ctx.load)
        settings = sub.settings(keep_alive: ctx.load.keep_alive_modes.first)
        settings = settings.with(rate: rate, duration: duration, connections: [ctx.load.connections * 4, 64].max) if rate
        measure(sub, settings, variant: variant).with(workload: ctx.workload.name, extra: rate ? {"target_rps" => rate} : {})
      end
    end
  end
end
