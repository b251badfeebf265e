# frozen_string_literal: true

module Arena
  # Whether a measurement's latency is a fixed delay rather than work: a
  # response that waits out a timer looks slow while the server idles.
  #
  # The shape: the median (with p75 close above it), or p90 (with p99 close
  # above it), sits just above a known fixed delay: half or a tenth of the
  # responses wait it out, as a cluster rather than a spread. The server's
  # processes used little CPU, and the engine's connections were all
  # waiting on responses (in a closed model, throughput x mean latency is about
  # the connection count: Little's law). Queueing for a busy CPU raises
  # latency too, but then the CPU is not low. A p99 alone at a delay is not
  # enough: on a busy machine it lands there by chance.
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

    # The latency sits within this band above a delay: the delay plus a
    # little work (uWSGI's router measured 43.9-44.1 ms, Agoo's poll 101 ms).
    BAND = (0.98..1.25)
    # The next percentile up stays under this multiple of the delay: a
    # cluster at the delay, not a spread passing through it.
    CLUSTER = 1.5
    # The server's tree used less than this share of its cores.
    LOW_CPU_SHARE = 0.5
    # Throughput x mean latency over connections, from which they count as busy.
    BUSY_SHARE = 0.8

    # The figures the rule reads, all plain numbers (latency in
    # microseconds; cpu_pct as /proc counts it, 100 = one core busy).
    Figures = Struct.new(:p50_us, :p75_us, :p90_us, :p99_us, :mean_us, :good_rps, :connections, :open_model, :keep_alive,
      :server_cpu_pct, :server_cores, keyword_init: true)

    module_function

    # -> Verdict "stalled" (reason: where, the likely cause, the telling run),
    # "not stalled", or cannot judge.
    def verdict(f)
      return Verdict.cannot_judge("no latency measured") if f.p50_us.nil? || f.mean_us.nil? || f.good_rps.to_f <= 0
      return Verdict.cannot_judge("no CPU figure for the server") if f.server_cpu_pct.nil?
      return Verdict.cannot_judge("open model: its connections are not all busy by design") if f.open_model
      near = nearest(f)
      return Verdict.of("not stalled", "no percentile sits at a known fixed delay") unless near
      cores = [f.server_cores.to_i, 1].max
      cpu_share = f.server_cpu_pct / (100.0 * cores)
      if cpu_share >= LOW_CPU_SHARE
        return Verdict.of("not stalled", "latency at #{near[:delay].ms} ms, but the server used #{percent(cpu_share)} of its cores")
      end
      busy = f.good_rps * f.mean_us / 1e6 / f.connections.to_f
      if busy < BUSY_SHARE
        return Verdict.of("not stalled", "latency at #{near[:delay].ms} ms, but the connections were waiting only #{percent(busy)} of the time")
      end
      Verdict.of("stalled", reason(f, near, cpu_share))
    end

    # The fixed delay the median, else p90, sits on, with the next
    # percentile up (p75, p99) close above it.
    def nearest(f)
      [[:p50, f.p50_us, f.p75_us], [:p90, f.p90_us, f.p99_us]].each do |name, us, above|
        next if us.nil?
        delay = DELAYS.find { |d| BAND.cover?(us / (d.ms * 1000.0)) }
        return {percentile: name, us: us, delay: delay} if delay && (above.nil? || above <= CLUSTER * delay.ms * 1000)
      end
      nil
    end

    def reason(f, near, cpu_share)
      delay = near[:delay]
      where = "#{near[:percentile]} #{format("%.1f", near[:us] / 1000.0)} ms sits at #{delay.ms} ms while the server used " \
        "#{percent(cpu_share)} of its cores and all #{f.connections} connections were waiting"
      if delay.ms == 40 && f.keep_alive == false
        return "#{where}; keep-alive was off, so not delayed ACK on a kept-alive connection: likely a 40 ms timer in the server"
      end
      "#{where}; likely #{delay.cause}; #{delay.tell}"
    end

    def percent(share) = "#{(share * 100).round}%"
  end
end
