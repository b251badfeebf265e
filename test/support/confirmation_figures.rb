# frozen_string_literal: true

require "arena"
require "arena/tune"

module Arena
  # Figures of known truth for the tests of the confirmation's verdict and
  # its words (Tune::Confirmed, Tune::AnswerWords): the confirmation's
  # values by their short names, a server of the catalogue on a 2-core machine, a paired
  # difference written as Stats.paired gives it, and the baseline as
  # Plan::Baseline finds it in the built-in app.
  module ConfirmationFigures
    Side = Tune::Confirmation::Side
    Round = Tune::Confirmation::Round
    Result = Tune::Confirmation::Result
    Reading = Probes::MachineSpeed::Reading
    Difference = Stats::Difference

    def adapter(key, settings) = Servers.fetch(key).new(settings: settings, machine: Plan::Machine.new(cores: 2))

    # A paired difference as Stats.paired gives it; p_value nil: not measured.
    def paired(estimate, low, high, significant: true, equivalent: false, n: 10, p_value: 0.01)
      Difference.new(estimate_pct: estimate, low_pct: low, high_pct: high, p_value: p_value, significant: significant, equivalent: equivalent, n: n)
    end

    # Puma with 3 threads, read from source (config/puma.rb, or "the Rails default").
    def baseline(source: "config/puma.rb")
      Plan::Baseline::Found.new(server: "puma", settings: {"threads" => 3, "workers" => 0}, source: source, notes: [])
    end
  end
end
