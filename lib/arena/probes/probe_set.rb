# frozen_string_literal: true

module Arena
  module Probes
    # Every probe of one measurement, by name, so that a measurement keeps no
    # list of them by hand: each is started as it is added (nil: that probe
    # does not apply here, e.g. no front), stopped once for its figures, and
    # whatever still runs when the measurement is cut short (Ctrl-C, a failed
    # engine) is stopped by #abort.
    #
    # Two kinds: a sampler holds a thread (or the agent's) between start and
    # stop and must be stopped; a reading only takes figures before and after
    # (Noise::Watch, a database's counters), holds nothing, and is dropped
    # on abort rather than read for figures nobody keeps.
    class ProbeSet
      def initialize
        @samplers = {}
        @readings = {}
      end

      def sample(name, probe) = add(@samplers, name, probe)

      def read(name, probe) = add(@readings, name, probe)

      # The figures of one probe, stopped now (nil when it did not run).
      def stop(name, **args)
        probe = @samplers.delete(name) || @readings.delete(name)
        return nil unless probe
        args.empty? ? probe.stop : probe.stop(**args)
      end

      # Stops every sampler still running, each whatever the others raise.
      def abort
        @readings.clear
        left = @samplers.values
        @samplers.clear
        left.each do |probe|
          probe.stop
        rescue
          nil
        end
      end

      private

      def add(kind, name, probe)
        raise ArgumentError, "probe #{name} twice" if @samplers.key?(name) || @readings.key?(name)
        kind[name] = probe.start if probe
        self
      end
    end
  end
end
