# frozen_string_literal: true

require "json"
require_relative "../results/measurement"

module Arena
  module Probes
    # Queue time apart from service time: the counts the timing wrapper
    # (app/arena_timing.rb) writes per server process, read before and after a
    # measurement; their growth is that measurement's requests.
    module QueueTime
      WRAPPER = File.expand_path("../app/arena_timing.rb", __dir__)
      PER_OCTAVE = 16
      # --queue-time on timed one request in 16: timing every request cost
      # the fastest servers up to a quarter of their throughput (Iodine -25%,
      # Unicorn -23%, Falcon -22%, Puma -9%), and the throughput rounds must
      # not carry the observer; bench/probe_cost gives each mode's paired cost.
      #
      # Then the header itself: bench/probe_cost (paired, 6 rounds, session 7)
      # read X-Request-Start alone costing Falcon 13.0% (10.1-15.8%) and Iodine
      # 12.6%, as much as timing one in 16; parsing one more header is the
      # server's work on every request that carries it. So "on" has the engine
      # send the header on one request in 16 (--request-start-every) and the
      # wrapper time exactly those ("h").
      #
      # Then one in 16 still cost Puma 6-8% and Iodine 1-9% (paired, 10
      # rounds, bench/probe_cost, session 9). So "on" now stamps the round's
      # warm-up alone (--request-start-warmup): each of its requests after its
      # connection's first, the loop already full, under the same connections
      # as the counted phase, which goes without the header. The split is the
      # warm-up's (Scenarios::RoundSize.warmup gives it a turn to time); "all" times the
      # counted phase itself, at its cost.
      MODES = {"on" => "h", "all" => 1, "off" => nil}.freeze
      # Which requests carry X-Request-Start: :warmup the warm-up's, 1 every one, nil none.
      HEADER_EVERY = {"on" => :warmup, "all" => 1, "off" => nil}.freeze

      # The wrapper's mode: 1 every request, "h" those with the header; nil: no wrapper.
      def self.every(mode) = MODES.fetch(mode)

      # :warmup (the warm-up's requests), 1 (every one) or nil (none).
      def self.header_every(mode) = HEADER_EVERY.fetch(mode)

      # Tells the wrapper in every process of the server how many to time
      # (app/arena_timing.rb reads DIR/mode each period).
      def self.write_mode(dir, every)
        File.write(File.join(dir, "mode.tmp"), every.to_s)
        File.rename(File.join(dir, "mode.tmp"), File.join(dir, "mode"))
      end

      # The environment that loads the wrapper into a server's Ruby processes,
      # beside whatever RUBYOPT the runtime sets.
      def self.env(dir, base_env)
        rubyopt = [base_env["RUBYOPT"], "-r#{WRAPPER}"].compact.join(" ")
        {"RUBYOPT" => rubyopt, "ARENA_TIMING_DIR" => dir}
      end

      # What the wrapper's files hold now: {"queue" => {bucket => n}, "work" => {...}}.
      class Files
        def initialize(dir)
          @dir = dir
        end

        def snapshot
          totals = {"queue" => Hash.new(0), "work" => Hash.new(0)}
          Dir.glob(File.join(@dir, "*.json")).each do |path|
            data = JSON.parse(File.read(path))
            totals.each_key { |k| Array(data[k]).each { |bucket, n| totals[k][bucket] += n } }
          rescue JSON::ParserError, SystemCallError
            next
          end
          totals
        end

        # The split since `before` (a snapshot), for a load that ended at
        # `ended_at` (Time): every live process writes its counts, or touches
        # its file when it has nothing new, each period of the wrapper's
        # (0.05 s); the read waits until every live file was written after the
        # end, or WAIT_S at most (a busy machine may wake a writer late). A
        # file untouched for LIVE_S is a process that is gone.
        def since(before, ended_at: Time.now)
          deadline = ended_at + WAIT_S
          sleep POLL_S until written_after?(ended_at) || Time.now >= deadline
          Split.of(before, snapshot)
        end

        WAIT_S = 0.15
        POLL_S = 0.01
        LIVE_S = 1.0

        def written_after?(time)
          Dir.glob(File.join(@dir, "*.json")).all? do |path|
            mtime = File.mtime(path)
            mtime > time || mtime < time - LIVE_S
          end
        rescue SystemCallError
          false
        end
      end

      # The counts' growth as a Results::QueueSplit (nil when the app saw nothing).
      module Split
        module_function

        def of(before, after)
          queue = diff(before["queue"], after["queue"])
          work = diff(before["work"], after["work"])
          n = work.values.sum
          return nil if n.zero?
          Results::QueueSplit.new(n: n, queue_n: queue.values.sum, queue_p50_us: at(queue, 50), queue_p99_us: at(queue, 99),
            work_p50_us: at(work, 50), work_p99_us: at(work, 99), work_mean_us: mean(work),
            queue_mean_us: (mean(queue) unless queue.empty?)).freeze
        end

        # The mean of the buckets' middles: what Little's law needs (busy
        # slots = throughput x mean time working; the stall rule's sum).
        def mean(hist) = hist.sum { |bucket, n| middle(bucket) * n }.fdiv(hist.values.sum).round

        def diff(a, b) = b.to_h { |k, v| [k, v - a.fetch(k, 0)] }.select { |_, v| v.positive? }

        # The middle of the bucket holding the rank (buckets are ~4% wide).
        def at(hist, pct)
          total = hist.values.sum
          return nil if total.zero?
          rank = (pct / 100.0 * total).ceil.clamp(1, total)
          seen = 0
          hist.sort.each do |bucket, n|
            seen += n
            return middle(bucket).round if seen >= rank
          end
        end

        def middle(bucket) = bucket.zero? ? 1 : 2**((bucket + 0.5) / PER_OCTAVE)
      end
    end
  end
end
