# frozen_string_literal: true

module Arena
  module Stats
    # How many of n responses may lie over a p99 bound before the sample says
    # the bound was missed. Were the true p99 exactly at the bound, the count
    # over it would be Binomial(n, 1%); a count at or under that
    # distribution's (1 - alpha) quantile is what such a server shows by
    # chance. So a level of 119 responses (a slow app's: 50 ms a request, 12 s
    # of load) may have 3 over its bound, not the 1 a p99 point estimate
    # allows: its p99 is its second-largest response, and a rule on that one
    # value dropped servers that served as well as those it kept.
    module TailCount
      # extend self, not module_function: the methods mutant mutates are the ones called
      extend self

      # Above this many expected tail responses the normal approximation stands in.
      NORMAL_FROM = 50
      Z_95 = 1.6449

      # The largest count over the bound still consistent with it (n >= 0).
      def allowed(n, share: 0.01, alpha: 0.05)
        expected = n * share
        return (expected + Z_95 * Math.sqrt(expected * (1 - share))).floor if expected >= NORMAL_FROM
        cumulative = pmf = (1 - share)**n
        k = 0
        while cumulative < 1 - alpha && k < n
          pmf *= (n - k).to_f / (k + 1) * share / (1 - share)
          cumulative += pmf
          k += 1
        end
        k
      end
    end
  end
end
