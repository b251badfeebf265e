# frozen_string_literal: true

require_relative "../system/procfs"

module Arena
  module Probes
    # How a server's kept-alive connections fell over its processes: the
    # established connections each process of its tree holds on its port
    # (Procfs.established), read once, `delay` seconds after the load began
    # (midway through its window), on a thread that sleeps until then: one
    # wake-up, not a sampler's every 0.2 s (Sampler: waking on the engine's
    # core cost Iodine 5-11% of its req/s). Concurrency turns it into the
    # slots those connections could reach.
    class Spread
      def initialize(pids:, port:, delay:, root: "/proc")
        @pids = pids
        @port = port
        @delay = delay
        @root = root
      end

      def start
        @thread = Thread.new do
          sleep @delay
          System::Procfs.established(@pids.call, @port, root: @root)
        end
        @thread.report_on_exception = false
        self
      end

      # {pid => connections held}; nil when the load ended before the read,
      # or the read failed.
      def stop
        return @thread.value if @thread.join(0)
        @thread.kill.join
        nil
      rescue
        nil
      end
    end
  end
end
