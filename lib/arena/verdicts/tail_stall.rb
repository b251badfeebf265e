# frozen_string_literal: true

require_relative "stall"
require_relative "verdict"

module Arena
  module Verdicts
    # Whether a measurement's tail holds time that neither queueing nor work
    # explains: the stall rule (stall.rb) read at the p99 instead of the mean.
    #
    # A timer that only some requests wait out leaves the mean near the work:
    # Agoo at its default poll_timeout (0.1 s) answered 1,674 req/s on the
    # built-in app's /server at 10% CPU, mean 19 ms, p99 101.8 ms in every
    # round, the app working microseconds. Its requests waited the 100 ms
    # before the app (waiting p99 98.9 ms), and the mean rule counts waiting
    # as explained. Waiting is queueing only as far as the slots were busy:
    # with C connections, a request waits behind at most C - 1 others, so
    # even on one slot queueing explains at most (C - 1) x working p99. What
    # the p99 holds beyond that and its own work is unexplained, and it is a
    # stall when that is at least max(20 ms, 20% of the p99) while the slots
    # were not busy (Little's law: good req/s x working mean, under 80% of the
    # slots the load fills) and the CPU had room (under half its cores).
    # A busy CPU or busy slots explain a long tail; then it is not a stall.
    # So does a busy machine (the measurement flagged `noisy`: other
    # processes or the hypervisor took the server's core) when the time
    # matches no known fixed delay: a unicorn beside another test's servers
    # read p99 73.6 ms at 28% of its core, every measurement of that run
    # noisy. A named delay (Agoo's 100 ms poll) is still said: being
    # descheduled does not wait out a timer's length every time.
    # Nothing here knows a server: a config's setting that sets the delay is
    # named by the report, from the config (Report::BriefFindings).
    #
    # Pure: Figures in, a Verdict out. Synthetic cases of known truth:
    # test/unit/verdicts/tail_stall_test.rb; the flag on a measurement's figures:
    # test/unit/verdicts/tail_stall_agoo_test.rb.
    module TailStall
      # p99_us: the good responses' p99 (nil: too few for one);
      # working_p99_us, working_mean_us: the app's split (nil without it);
      # split_n: the requests the split timed; slots: the config's declared
      # slots (nil: no fixed ceiling); cpu as /proc counts it (100 = one core);
      # noisy: the machine was busy while it was measured (Verdicts::Noise).
      Figures = Struct.new(:p99_us, :working_p99_us, :working_mean_us, :good_rps, :connections, :slots,
        :server_cpu_pct, :server_cores, :open_model, :split_n, :noisy, keyword_init: true)

      # A split of fewer timed requests has no p99 worth reading.
      SPLIT_LEAST = 20

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # The summary's flag (Flags::RULES): the Verdict when the tail stalled
      # and the stall rule on the means has not said so already (one
      # "stalled" a measurement), else nil.
      def flag(f)
        return nil if f.stalled?
        v = verdict(figures(f.load, f.queue, slots: f.slots, noisy: f.noisy, **f.cpu))
        v if v.word == "stalled"
      end

      # What this rule reads of a measurement: its load (Results::LoadFigures)
      # and the app's split (Results::QueueSplit or nil).
      def figures(load, queue, slots:, server_cpu_pct:, server_cores:, noisy: false)
        Figures.new(p99_us: load.latency.at(:p99), working_p99_us: queue&.work_p99_us,
          working_mean_us: queue&.work_mean_us, good_rps: load.good_rps, connections: load.connections_requested, slots: slots,
          server_cpu_pct: server_cpu_pct, server_cores: server_cores, open_model: load.open?, split_n: queue&.queue_n,
          noisy: noisy).freeze
      end

      # -> "stalled" (the unexplained time, the slots and CPU, the likely
      # cause), "not stalled" (why), or cannot judge.
      def verdict(f)
        return Verdict.cannot_judge("no p99 measured") if f.p99_us.nil? || f.good_rps.to_f <= 0
        return Verdict.cannot_judge("open model: its connections are not all busy by design") if f.open_model
        unless f.working_p99_us && f.working_mean_us && f.split_n.to_i >= SPLIT_LEAST
          return Verdict.cannot_judge("no waiting/working split of #{SPLIT_LEAST} requests (--queue-time on)")
        end
        connections = f.connections.to_i
        return Verdict.cannot_judge("no connections") unless connections.positive?
        judge(f, connections)
      end

      # The figures said with the stall rule's own words (Stall's ms, percent,
      # threshold, delay, CPU share), so the two rules read and say alike.
      def judge(f, connections)
        queueing = (connections - 1) * f.working_p99_us
        unexplained = f.p99_us - f.working_p99_us - queueing
        parts = "p99 #{Stall.ms(f.p99_us)}: working p99 #{Stall.ms(f.working_p99_us)} and at most #{Stall.ms(queueing)} queueing " \
          "(#{connections - 1} requests ahead on one slot) explain #{Stall.ms(f.p99_us - [unexplained, 0].max)}, " \
          "#{Stall.ms([unexplained, 0].max)} unexplained"
        return Verdict.of("not stalled", "#{parts}: work and queueing, not a stall") if unexplained < Stall.threshold(f.p99_us)
        fill = [f.slots || connections, connections].min
        busy = f.good_rps * f.working_mean_us / 1e6 / fill
        if busy >= Stall::OCCUPIED
          return Verdict.of("not stalled", "#{parts}, but #{Stall.percent(busy)} of #{fill} slots were busy: a queue, not a stall")
        end
        share = Stall.cpu_share(f)
        if share && share >= Stall::BUSY_CPU
          return Verdict.of("not stalled", "#{parts}, but the server used #{Stall.percent(share)} of its cores: time waiting " \
            "for a core, not a stall")
        end
        idle = "#{Stall.percent(busy)} of #{fill} slots busy#{" and #{Stall.percent(share)} of its cores" if share}"
        named = Stall.delay(unexplained)
        return Stall.busy_machine("#{parts} while #{idle}") if !named && f.noisy
        cause = named ? "likely #{named.cause}; #{named.tell}" : "no known fixed delay"
        Verdict.of("stalled", "#{parts} while #{idle}; #{cause}")
      end
    end
  end
end
