# frozen_string_literal: true

module Arena
  module Results
    # What else the machine did while a measurement ran (Probes::Noise takes
    # them): other_cpu_pct: other processes' CPU in % of one core (100 = a core
    # busy the whole time), those seen at either end and those that came
    # and went between (unseen_cpu_pct of it: a test run's short processes,
    # a build's compilers); steal_pct: % of all CPU time the hypervisor took;
    # arena_cpu_pct: Arena's own process (its sampler, probes and garbage
    # collector), ours and not other, but CPU that an unpinned Arena takes
    # from the server's cores while it is measured.
    NoiseFigures = Struct.new(:steal_pct, :other_cpu_pct, :unseen_cpu_pct, :arena_cpu_pct, :load_before, :governor, :seconds, keyword_init: true) do
      def self.from_h(h)
        return nil unless h.is_a?(Hash)
        new(**h.transform_keys(&:to_sym).slice(*members)).freeze
      end
    end
  end
end
