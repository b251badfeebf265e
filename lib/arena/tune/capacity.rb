# frozen_string_literal: true

require_relative "../support/format"

module Arena
  module Tune
    # Why a config wins, from its own figures and Little's law. At the
    # sustained rate λ with mean latency W, L = λW requests are in the server
    # on average (served or queued), against the slots it has (workers x
    # threads). Two ceilings bound the throughput: the CPU (server cores over
    # the CPU one request costs, measured as the tree's CPU at the closed
    # maximum over that throughput) and the slots (slots over S, the time a
    # slot is held when little queues: the mean latency at the lightest rate
    # the config held).
    class Capacity
      # The tree this busy (share of its cores) at the closed maximum: CPU-bound
      # (the rest of a core goes to the kernel's network work and the probes).
      CPU_BOUND = 0.75

      # The slots that would keep the server's cores busy, from one config's
      # figures (the search's model, lib/arena/tune/search.rb): a request
      # costs cpu_ms of CPU and holds a slot service_ms (working plus
      # waiting); at the CPU ceiling, cores x 1000 / cpu_ms req/s, Little's
      # law puts cores x service_ms / cpu_ms requests in service. A
      # CPU-bound app (service = CPU) needs a slot per core; one that waits
      # three quarters of its time, four. Nil without the figures.
      def self.saturating_slots(candidate, cores:)
        cpu_ms = new(server: nil, candidate: candidate, cores: cores).cpu_ms
        service = candidate.service_ms.to_f
        return nil unless cpu_ms&.positive? && service.positive?
        cores * [service / cpu_ms, 1.0].max
      end

      # server: the adapter class, whose `slots` (servers/tuning.rb) say what a config can hold.
      def initialize(server:, candidate:, cores:)
        @slots = server&.slots
        @c = candidate
        @cores = cores
      end

      attr_reader :cores

      def slots = @slots&.call(@c.settings)

      def cpu_pct = @c.cpu_pct

      def in_server = (@c.mean_ms && @c.sustained_rps.to_f * @c.mean_ms / 1000.0)&.round(2)

      def service_ms = @c.service_ms&.to_f

      # CPU milliseconds one request cost at the closed maximum.
      def cpu_ms = ((cpu_pct / 100.0 * 1000 / @c.closed_rps).round(3) if cpu_pct && @c.closed_rps.to_f.positive?)

      def cpu_ceiling = (cores * 1000.0 / cpu_ms if cpu_ms&.positive?)

      def slot_ceiling = (slots * 1000.0 / service_ms if slots && service_ms&.positive?)

      # What limits it: the CPU, the slots, or neither (waiting: I/O, the GVL, the server itself).
      def limit
        closed = @c.closed_rps.to_f
        return nil if closed <= 0
        if cpu_pct && cpu_pct >= CPU_BOUND * 100 * cores then "cpu"
        elsif slot_ceiling && closed >= 0.8 * slot_ceiling then "slots"
        else "waiting"
        end
      end

      def explanation
        f = Support::Format
        return "not enough figures for a capacity explanation" unless in_server
        text = "At #{f.rps(@c.sustained_rps)} req/s with a mean latency of #{@c.mean_ms} ms, Little's law puts " \
          "L = #{in_server} requests in the server on average"
        text << (slots ? " for #{slots} slots (#{slot_words}#{"; the rest queue" if in_server > slots})." : " (no fixed slot ceiling).")
        if cpu_ms
          text << " At the closed maximum (#{f.rps(@c.closed_rps)} req/s) the tree used #{@c.cpu_pct.round}% of a core, " \
            "#{cpu_ms} ms of CPU a request: #{@cores} server #{(@cores == 1) ? "core serves" : "cores serve"} at most #{f.rps(cpu_ceiling)} req/s."
        end
        if slot_ceiling
          text << " A request holds a slot S = #{service_ms} ms (its time inside the app, measured with --queue-time on; else " \
            "its mean latency at a light rate, else unloaded), so #{slots} slots " \
            "could pass #{f.rps(slot_ceiling)} req/s."
        end
        text << " #{verdict}"
      end

      private

      def slot_words = @slots.words

      def verdict
        case limit
        when "cpu" then "The CPU is the limit: more slots would only queue requests and cost memory."
        when "slots" then "The slots are the limit: more would serve more, as long as the CPU and the memory budget allow."
        else "Neither is reached: requests wait (I/O, the GVL, the server's own work), so slots that overlap the waiting pay."
        end
      end
    end
  end
end
