# frozen_string_literal: true

# Small helpers every folder uses: the clock, CPU affinity, signals, quoting, plain YAML, registries, and
# figures and words as a person reads them (Format, Short).
require_relative "support/affinity"
require_relative "support/clock"
require_relative "support/format"
require_relative "support/plain_yaml"
require_relative "support/quote"
require_relative "support/registry"
require_relative "support/short"
require_relative "support/signals"
