# frozen_string_literal: true

module Arena
  # Effective concurrency: how many requests a config had inside the app at
  # once, by Little's law on the app's own working time (busy slots =
  # throughput x mean time working), beside the slots its settings declare
  # (workers x threads, processes; none for fibers or a thread per
  # connection, where the connections are the ceiling). A config that ran far
  # fewer at once than it declares, while requests waited before the app and
  # the CPU had room, is "under-concurrent": its settings do not say what it
  # runs (Agoo's Rack handler ignores its thread count; README).
  #
  # Requests that waited less than they worked were not held back by the
  # slots; a busy CPU is the limit itself: neither is said under-concurrent.
  # Pure: Figures in, a Result (busy slots and a Verdict) out.
  module Concurrency
    # rps: responses a second (good or not: each held a slot); working_mean_us
    # and working_p50_us, waiting_p50_us: the app's split; declared: the
    # config's slots (nil: no fixed ceiling).
    Figures = Struct.new(:rps, :working_mean_us, :working_p50_us, :waiting_p50_us, :declared, :connections, :server_cpu_pct,
      :server_cores, keyword_init: true)

    Result = Struct.new(:busy_slots, :verdict, keyword_init: true)

    # Busy under this share of the slots the load could fill: far fewer.
    # Iodine with 2 workers x 4 threads, whose kernel handed all 32
    # connections to one worker, ran half its slots: 3.94 and 4.09 of 8 in two
    # rounds. That is under-concurrent, so the line sits above half.
    UNDER = 0.6

    # Below this much work a request (the built-in app's /server: tens of
    # microseconds), a slot turns over faster than the server's own parsing
    # and writing of each request: that time, not the slots, sets the pace,
    # and busy slots read near zero on every server (seen on all eleven of a
    # default run before this line existed).
    SHORTEST_WORK_US = 1_000

    # extend self, not module_function: mutant mutates the methods the module then calls
    extend self

    def call(f)
      working = f.working_mean_us || f.working_p50_us
      unless working && f.rps
        return Result.new(verdict: Verdict.cannot_judge("no waiting/working split (--queue-time on)")).freeze
      end
      busy = (f.rps * working / 1e6).round(2)
      Result.new(busy_slots: busy, verdict: verdict(f, busy, working)).freeze
    end

    def verdict(f, busy, working)
      connections = f.connections.to_i
      fill = [f.declared || connections, connections].min
      return Verdict.cannot_judge("no connections to fill the slots") unless fill.positive?
      declared = f.declared ? "#{f.declared} declared" : "no fixed ceiling"
      said = "#{busy} of #{fill} slots busy (#{f.rps.round(1)} req/s x #{ms(working)} working; #{declared}, #{connections} connections)"
      return Verdict.of("ok", said) if busy >= UNDER * fill
      if working < SHORTEST_WORK_US
        return Verdict.of("ok", "#{said}: the app works under #{ms(SHORTEST_WORK_US)} a request; the server's own " \
          "time per request, not its slots, sets the pace")
      end
      waiting = f.waiting_p50_us.to_f
      if waiting < f.working_p50_us.to_f
        return Verdict.of("ok", "#{said}: requests waited #{ms(waiting)} p50 before the app, less than they worked; " \
          "the slots were not what held them")
      end
      share = f.server_cpu_pct && f.server_cpu_pct / (100.0 * [f.server_cores.to_i, 1].max)
      if share && share >= Stall::BUSY_CPU
        return Verdict.of("ok", "#{said}: the server used #{(share * 100).round}% of its cores, the CPU is the limit")
      end
      Verdict.of("under-concurrent", "#{said}, while requests waited #{ms(waiting)} p50 before the app and worked " \
        "#{ms(f.working_p50_us.to_f)}: it ran fewer requests at once than its settings declare")
    end

    def ms(us) = "#{format("%.1f", us / 1000.0)} ms"
  end
end
