# frozen_string_literal: true

require "etc"

module Arena
  module Support
    # Arena's own process on the engine's core, off the server's: its
    # samplers, probes and settling took 9-14% of a core, unpinned, wherever the
    # scheduler put them (issue 32). Programs it starts without cores of their
    # own (PostgreSQL, bundle) run on every core, as before the pinning.
    module Affinity
      # The cores this process may use, read when Arena loads, before it pins
      # itself: Etc.nprocessors counts the affinity, so it reads 1 after.
      CORES = Etc.nprocessors
      STARTED_ON = File.read("/proc/self/status")[/^Cpus_allowed_list:\s*(\S+)/, 1] || "0-#{CORES - 1}"

      @pinned = nil

      class << self
        # The CPU list Arena's threads run on, or nil when it did not pin itself.
        attr_reader :pinned

        # Pins every thread of this process to `cpus` (taskset's list, e.g. "1");
        # threads started later inherit it. False when not pinned (no cpus, or
        # taskset failed: then nothing changed).
        def pin_self(cpus)
          return false unless cpus
          ok = system("taskset", "-a", "-p", "-c", cpus.to_s, Process.pid.to_s, out: File::NULL, err: File::NULL)
          @pinned = cpus.to_s if ok
          !!ok
        end

        # Every core Arena started with: what a program started without cores
        # of its own gets while Arena is pinned.
        def all = STARTED_ON

        # The cores a program started with `cpus` (nil: none of its own) runs on.
        def for_child(cpus) = cpus || (all if pinned)
      end
    end
  end
end
