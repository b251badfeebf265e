# frozen_string_literal: true

require_relative "verdict"

module Arena
  module Verdicts
    # Whether a measurement's latency holds time that neither queueing nor work
    # explains: a response that waits out a timer (delayed ACK, a poll) while
    # the server has nothing to do. A latency that merely sits near 40, 100 or
    # 200 ms is not a stall: 32 connections on 8 slots of a 50 ms request wait
    # four waves, 200 ms, and that is queueing.
    #
    # With the app's own waiting/working split (Arena's timing wrapper,
    # --queue-time on): unexplained = mean - (waiting mean + working mean), the
    # time a request spent neither queued before the app nor inside it (means,
    # because they add up: see #split). It is a stall when that is at least
    # max(20 ms, 20% of the mean).
    #
    # Without the split: Little's law on the slots. In a closed model with C
    # connections on S = min(slots, C) slots of service time T, queueing
    # predicts a mean latency of T x C / S and keeps the slots busy
    # (occupancy = throughput x T / S near 1). A stall leaves the slots idle
    # (occupancy well below 1) with the mean latency above that prediction by
    # about a known fixed delay; any other excess is not named a stall (a
    # server that runs fewer requests at once than it declares queues too).
    #
    # Low CPU only supports a stall, it never proves one; a busy CPU explains
    # time outside the app (a thread waiting for a core or the GVL to write
    # its response), so a stall is not said then. Nor is one said when the
    # machine was busy (the measurement flagged `noisy`) and the time matches
    # no known fixed delay: another process held the core.
    #
    # The delays worth naming:
    # - 40 ms: Linux's shortest delayed ACK. A response written in two or more
    #   short pieces without TCP_NODELAY waits (Nagle) for the client to
    #   acknowledge the first, and a client on a kept-alive connection
    #   acknowledges late. A new connection acknowledges at once (quick-ACK), and
    #   a response written whole has no second piece: keep-alive off, or a
    #   response under 4 KB, tells this from a slow server.
    # - 100 ms: a poll interval or timer in the server (an event loop that
    #   misses a wake-up and waits out its poll timeout).
    # - 200 ms: delayed ACK at its longest (a client that is not Linux, or a
    #   Linux ACK timer grown), or a 200 ms timer.
    #
    # Pure: Figures in, a Verdict out (its reason says the throughput the stall
    # cost). Synthetic cases of known truth: test/unit/verdicts/stall_test.rb.
    module Stall
      # One fixed delay: its length, what usually causes it, and the run that
      # tells that cause apart.
      Delay = Struct.new(:ms, :cause, :tell, keyword_init: true)

      DELAYS = [
        Delay.new(ms: 40, cause: "Linux's 40 ms delayed ACK: a response written in pieces without TCP_NODELAY (Nagle) " \
          "waits for the client's late acknowledgement",
          tell: "the same run with --keep-alive off (a new connection acknowledges at once) or a response under 4 KB " \
            "(written whole) does not wait if this is the cause"),
        Delay.new(ms: 100, cause: "a 100 ms poll interval or timer in the server (a missed wake-up waits out the poll timeout)",
          tell: "lowering the server's poll or timer setting moves the delay if this is the cause"),
        Delay.new(ms: 200, cause: "delayed ACK at its longest (200 ms) or a 200 ms timer",
          tell: "the same run with --keep-alive off or a smaller response does not wait if it is delayed ACK")
      ].map(&:freeze).freeze

      # The unexplained time is named after a delay within this band of it
      # (WEBrick's delayed ACK left 42 ms, Agoo's poll 101 ms).
      BAND = (0.85..1.3)
      # A stall is at least this much unexplained time, and this share of p50.
      FLOOR_US = 20_000
      SHARE = 0.2
      # Without the split: slots this busy (Little's law) are queueing.
      OCCUPIED = 0.8
      # The server's tree used at least this share of its cores: a busy CPU.
      BUSY_CPU = 0.5

      # The figures the rule reads, all plain numbers (latency in
      # microseconds; cpu_pct as /proc counts it, 100 = one core busy).
      # waiting_p50_us, working_p50_us: the app's split (nil without it);
      # slots: the config's declared slots (nil: no fixed ceiling);
      # service_us: the request's unloaded latency, the service time when
      # there is no split (nil when unknown).
      # waiting_mean_us, working_mean_us: the split's means (nil in documents
      # written before they were kept: the p50s are used then).
      # split_n: the requests the split timed (under --queue-time on, the warm-up's
      # requests but each connection's first; nil: not known).
      # noisy: the machine was busy while it was measured (Verdicts::Noise).
      Figures = Struct.new(:p50_us, :mean_us, :good_rps, :connections, :open_model, :keep_alive, :server_cpu_pct,
        :server_cores, :waiting_p50_us, :working_p50_us, :slots, :service_us, :waiting_mean_us, :working_mean_us, :split_n,
        :noisy, keyword_init: true)

      # A split of fewer timed requests says little (a one-slot Thin at 17 req/s
      # once gave 3, when one request in 16 was timed): the slots' occupancy is
      # used instead.
      SPLIT_LEAST = 20
      # ...but this many still tell queueing from a stall when their means
      # leave no time unexplained.
      FEW_LEAST = 5

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # The summary's flag (Flags::RULES): the verdict on the measurement's figures, when stalled.
      def flag(f) = (f.stall if f.stalled?)

      # -> Verdict "stalled" (reason: the time nothing explains, its likely
      # cause, the telling run, the throughput it cost), "not stalled" (why),
      # or cannot judge.
      def verdict(f)
        return Verdict.cannot_judge("no latency measured") if f.p50_us.nil? || f.mean_us.nil? || f.good_rps.to_f <= 0
        return Verdict.cannot_judge("open model: its connections are not all busy by design") if f.open_model
        if f.split_n && f.split_n < SPLIT_LEAST
          occupancy(f)
        elsif f.waiting_mean_us && f.working_mean_us
          split(f, "mean", f.mean_us, f.waiting_mean_us, f.working_mean_us)
        elsif f.waiting_p50_us && f.working_p50_us
          split(f, "p50", f.p50_us, f.waiting_p50_us, f.working_p50_us)
        else
          occupancy(f)
        end
      end

      # The app's split: latency = waiting + working + unexplained, on means
      # where the split has them. Means add up; p50s do not: 32 connections on
      # 8 slots of 50 ms wait 100 or 150 ms in turn, so the waiting p50 of a
      # sample falls on either, and p50 - (waiting p50 + working p50) read 50 ms
      # "unexplained" in 2 of 3 rounds for Puma and Itsi (a queue called a
      # stall). Little's law is on means too: the same connections without the
      # unexplained time pass latency / explained as many.
      def split(f, stat, latency, waiting, working)
        explained = waiting + working
        unexplained = latency - explained
        parts = "#{stat} #{ms(latency)} = waiting #{ms(waiting)} + working #{ms(working)} + #{ms([unexplained, 0].max)} unexplained"
        if unexplained < threshold(latency)
          what = (waiting > working) ? "queueing" : "work"
          return Verdict.of("not stalled", "#{parts}: #{what}, not a stall")
        end
        # Slots kept busy are a queue, wherever it waits: Iodine's 8 slots were
        # 98% busy (Little's law: 158 req/s x 49.6 ms) while its requests showed
        # 1 ms waiting before the app; the other 24 of 32 waited where the
        # app's clock does not see.
        slots = fill(f)
        slots = nil unless slots.positive?
        rate, how = busy_rate(f)
        busy = slots && rate * working / 1e6 / slots
        if busy && busy >= OCCUPIED
          return Verdict.of("not stalled", "#{parts}, but #{percent(busy)} of #{slots} slots were busy (#{num(rate)} req/s x " \
            "#{ms(working)} working#{how}): a queue the app's clock does not see, not a stall")
        end
        # What the same connections would pass without the unexplained time,
        # never more than the slots serve (no working time: Infinity, no cap).
        would = f.good_rps * latency / [explained, 1].max
        would = [would, slots * 1e6 / working].min if slots
        stalled(f, parts, unexplained, would)
      end

      # The rate that kept the slots busy, and how it was read: the round's
      # count, or Little's law on the closed loop (connections / mean latency)
      # where that reads more. A round counts the answers that arrive in it, so
      # answers held across its edges move the count: one-slot Thin, holding
      # answers 637 ms in a 2 s round, counted 15 req/s while its 32
      # connections each waited 1600.8 ms, 20 req/s, the slot's limit. The
      # loop is on the mean (the p50s of a document without means do not add).
      def busy_rate(f)
        loop = f.connections.to_i * 1e6 / f.mean_us
        return [f.good_rps, ""] unless loop > f.good_rps
        [loop, "; the rate is Little's law on the loop, #{f.connections} connections / #{ms(f.mean_us)}, where the round " \
          "counted #{num(f.good_rps)}"]
      end

      # The slots a closed model fills: min(declared, connections); 0 without connections.
      def fill(f)
        connections = f.connections.to_i
        [f.slots || connections, connections].min
      end

      # No split: Little's law on the slots and the unloaded service time.
      def occupancy(f)
        service = f.service_us
        return Verdict.cannot_judge("no waiting/working split (--queue-time on) and no unloaded latency to compare with") unless service&.positive?
        slots = fill(f)
        return Verdict.cannot_judge("no connections") unless slots.positive?
        predicted = service * f.connections / slots.to_f
        busy = f.good_rps * service / 1e6 / slots
        excess = f.mean_us - predicted
        parts = "slots #{percent(busy)} busy (#{num(f.good_rps)} req/s x #{ms(service)} unloaded over #{slots} slots); " \
          "mean #{ms(f.mean_us)} against #{ms(predicted)} queueing predicts"
        return Verdict.of("not stalled", "#{parts}: queueing, not a stall") if busy >= OCCUPIED || excess < threshold(f.p50_us)
        unless delay(excess)
          return Verdict.of("not stalled", "#{parts}: #{ms(excess)} more, no known fixed delay (fewer requests in service " \
            "than the slots? --queue-time on tells)")
        end
        # In a closed loop the mean latency is connections / throughput
        # (Little), so slots under-used read as excess too: Iodine with every
        # connection in one of its two workers ran 4 of 8 slots, and 32 x 51.8
        # ms / 4 sat at 200 ms. A few timed requests whose time was all
        # waiting before the app and working in it say queueing.
        if (queued = few_timed_queueing(f))
          return Verdict.of("not stalled", "#{parts}; #{queued}: queueing on fewer slots, not a stall")
        end
        stalled(f, parts, excess, slots * 1e6 / service)
      end

      # The few timed requests' words where their means leave no unexplained
      # time (at least FEW_LEAST of them), else nil.
      def few_timed_queueing(f)
        return nil unless f.split_n.to_i >= FEW_LEAST && f.waiting_mean_us && f.working_mean_us
        unexplained = f.mean_us - f.waiting_mean_us - f.working_mean_us
        return nil if unexplained >= threshold(f.mean_us) || f.waiting_mean_us <= f.working_mean_us
        "#{f.split_n} timed requests waited #{ms(f.waiting_mean_us)} before the app and worked #{ms(f.working_mean_us)} (means), " \
          "#{ms([unexplained, 0].max)} unexplained"
      end

      def stalled(f, parts, unexplained, would)
        share = cpu_share(f)
        if share && share >= BUSY_CPU
          return Verdict.of("not stalled", "#{parts}, but the server used #{percent(share)} of its cores: time waiting " \
            "for a core or the GVL outside the app, not a stall")
        end
        idle = (" while the server used #{percent(share)} of its cores" if share)
        # Never more than its cores serve at its CPU per request (cores ÷ CPU
        # per request = good req/s ÷ the share of its cores it used): WEBrick on
        # a 0.03 ms request "would" have passed 25,565 req/s without its stall.
        cores_serve = share&.positive? ? f.good_rps / share : nil
        capped = cores_serve && cores_serve < would
        would = cores_serve if capped
        cost = "it cost about #{num(would - f.good_rps)} of #{num(would)} req/s" \
          "#{" (what its cores serve at #{percent(share)} of them for #{num(f.good_rps)} req/s)" if capped}"
        named = delay(unexplained)
        return busy_machine("#{parts}#{idle}") if !named && f.noisy
        return Verdict.of("stalled", "#{parts}#{idle}; no known fixed delay; #{cost}") unless named
        Verdict.of("stalled", "#{parts}#{idle}; likely #{cause(named, f)}; #{cost}")
      end

      def cause(named, f)
        if named.ms == 40 && f.keep_alive == false
          return "a 40 ms timer in the server (keep-alive was off, so not delayed ACK on a kept-alive connection)"
        end
        "#{named.cause}; #{named.tell}"
      end

      # Time of no known length while the machine was busy (the measurement
      # flagged noisy): another process held the core. `said`: the figures as
      # the rule puts them. The tail rule (TailStall) says it alike.
      def busy_machine(said) = Verdict.of("not stalled", "#{said}, but the machine was busy (noisy) and no known fixed " \
        "delay matches: time waiting for a core, not a stall")

      def threshold(latency_us) = [FLOOR_US, SHARE * latency_us].max

      def delay(us) = DELAYS.find { |d| BAND.cover?(us / (d.ms * 1000.0)) }

      def cpu_share(f) = f.server_cpu_pct && f.server_cpu_pct / (100.0 * [f.server_cores.to_i, 1].max)

      def ms(us) = "#{format("%.1f", us / 1000.0)} ms"

      def num(x) = x.round

      def percent(share) = "#{(share * 100).round}%"
    end
  end
end
