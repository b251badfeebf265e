# frozen_string_literal: true

require_relative "stall"
require_relative "verdict"

module Arena
  module Verdicts
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
      # spread: the connections each process of the server's tree held on its
      # port midway through the load (Procfs.established), nil where it was not
      # read (an open model, keep-alive off or closed by the server, a unix
      # socket, a front, a server host); processes: the serving processes the
      # config declares (its workers).
      Figures = Struct.new(:rps, :working_mean_us, :working_p50_us, :waiting_p50_us, :declared, :connections, :server_cpu_pct,
        :server_cores, :spread, :processes, keyword_init: true)

      # reachable_slots: the slots the connections could keep busy (nil: not
      # known); uneven: the spread's Verdict ("uneven" or "ok"; cannot judge
      # without a spread).
      Result = Struct.new(:busy_slots, :verdict, :reachable_slots, :uneven, keyword_init: true)

      # Busy under this share of the slots the load could fill: far fewer.
      # Iodine with 2 workers x 4 threads, whose kernel handed all 32
      # connections to one worker, ran half its slots: 3.94 and 4.09 of 8 in two
      # rounds. Read against its 8 declared slots that is under-concurrent, so
      # the line sits above half; where the spread was read, its fill is the 4
      # slots those connections reach, and the finding is "uneven" (#verdict).
      UNDER = 0.6

      # Below this much work a request (the built-in app's /server: tens of
      # microseconds), a slot turns over faster than the server's own parsing
      # and writing of each request: that time, not the slots, sets the pace,
      # and busy slots read near zero on every server (seen on all eleven of a
      # default run before this line existed).
      SHORTEST_WORK_US = 1_000

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # The summary's two flags (Flags::RULES) from the one reading of the figures.
      module Uneven
        def self.flag(f) = f.concurrency.uneven.then { |v| v if v.word == "uneven" }
      end

      module Under
        def self.flag(f) = f.concurrency.verdict.then { |v| v if v.word == "under-concurrent" }
      end

      # The reachable slots may fall this share short of the slots the load
      # could fill and go unsaid. A whole slot is 5% or more of any config up
      # to 20 slots, so there one missing slot speaks (Iodine's 7 of 8, 12.5%,
      # read 138.5 of 160 req/s); past 20, one slot (31 of 32: 3%) costs less
      # than the 5% a figure is read within (test/integration/capacity_io_test.rb)
      # and the noise between runs, so it would explain nothing.
      EVEN = 0.95

      def call(f)
        working = f.working_mean_us || f.working_p50_us
        reachable = reachable_slots(f)
        uneven = spread_verdict(f, reachable, working)
        unless working && f.rps
          return Result.new(verdict: Verdict.cannot_judge("no waiting/working split (--queue-time on)"), reachable_slots: reachable,
            uneven: uneven).freeze
        end
        busy = (f.rps * working / 1e6).round(2)
        Result.new(busy_slots: busy, verdict: verdict(f, busy, working, reachable), reachable_slots: reachable, uneven: uneven).freeze
      end

      # Under-concurrent is judged against the slots the connections could
      # reach, not those declared: a worker holding 3 connections cannot keep
      # 4 threads busy whatever its settings say, so a shortfall the spread
      # explains is the spread's finding (uneven: the kernel's hand-out, which a
      # rerun may change), not the settings'. What the reachable slots do not
      # explain is still under-concurrent, and then both are said: Agoo's one
      # request at a time stays under-concurrent however its connections fell.
      def verdict(f, busy, working, reachable)
        connections = f.connections.to_i
        fill = [f.declared, connections, reachable].compact.min
        return Verdict.cannot_judge("no connections to fill the slots") unless fill.positive?
        declared = f.declared ? "#{f.declared} declared" : "no fixed ceiling"
        declared += ", #{reachable} reachable" if reachable
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

      # The slots the connections could keep busy: each serving process runs
      # at most as many requests at once as it holds connections, so the sum
      # over them of min(its slots, its connections). Known when the config's
      # slots divide evenly over more than one process that each accept their
      # own connections (workers x threads), and those held every connection
      # of the load when read (fewer: some sat unaccepted in the kernel's
      # queue, free to go to whichever worker took them next, or the load had
      # ended: the spread was not yet, or no longer, the load's); nil otherwise.
      def reachable_slots(f)
        per = slots_per_process(f) or return nil
        serving(f).sum { |held| [held, per].min }
      end

      def slots_per_process(f)
        processes = f.processes.to_i
        return nil unless f.spread && f.declared && processes > 1 && (f.declared % processes).zero?
        return nil if f.spread.sum < f.connections.to_i
        f.declared / processes
      end

      # The serving processes' connection counts, most first: as many as the
      # config declares, so a master holding none is left out and a worker
      # holding none (or gone) counts as a zero.
      def serving(f) = (f.spread.sort.reverse + [0] * f.processes).first(f.processes)

      # "uneven" when the connections reached fewer slots than the load could
      # fill (EVEN), with the spread and the rate those slots allow at the
      # app's working time, where that time sets the pace (SHORTEST_WORK_US or
      # more): a request the app works 14 us at read "at most 285714.3 req/s at
      # 0.0 ms a request", a limit no server comes near, from a time the
      # server's own work per request dwarfs.
      def spread_verdict(f, reachable, working)
        return Verdict.cannot_judge("no spread of connections over processes") unless reachable
        fill = [f.declared, f.connections.to_i].min
        held = serving(f)
        uneven = reachable < EVEN * fill
        said = "connections spread #{uneven ? "unevenly" : "evenly enough"} over #{f.processes} workers " \
          "(#{words(held)} of #{held.sum}): #{reachable} of #{fill} slots reachable"
        return Verdict.of("ok", said) unless uneven
        limit = ", so at most #{(reachable * 1e6 / working).round(1)} req/s at #{ms(working)} a request" if working.to_f >= SHORTEST_WORK_US
        Verdict.of("uneven", "#{said}#{limit}")
      end

      # [29, 3] -> "29 and 3"; [20, 8, 4] -> "20, 8 and 4" (two or more: a spread is over workers).
      def words(counts) = "#{counts[0...-1].join(", ")} and #{counts.last}"

      def ms(us) = "#{format("%.1f", us / 1000.0)} ms"
    end
  end
end
