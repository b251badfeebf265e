# frozen_string_literal: true

require_relative "arena_case"
require "arena"
require_relative "../fixtures/apps/capacity/configs"

module Arena
  # Every installed server on the app of known capacity
  # (test/fixtures/apps/capacity), in configs whose slots the test knows: what
  # Arena reads must agree with the limit physics sets before anything runs.
  class CapacityCase < ArenaCase
    APP = File.join(ROOT, "test/fixtures/apps/capacity")
    CONNECTIONS = 32

    # spec => [slots, Ruby processes serving]: test/fixtures/apps/capacity/configs.rb.
    CONFIGS = CapacityConfigs::ALL

    # The configs whose server is installed here (Puma on JRuby is not run:
    # an app's own gems do not boot there).
    def configs
      CONFIGS.select do |spec, _|
        klass = Servers.fetch(spec.split(":").first)
        !klass.bundle_gems.empty? || klass.install(Bundle::AppSource.builtin).found
      end
    end

    # One arena run of every config on each of `workloads`: one round, short loads
    # (-d as given: with no warm-up to a steady state, --warmup-max 0, no
    # rate sizes the round; a sleeping app has nothing to warm, and each
    # round's -w still covers a turn of its closed loop, Scenarios::RoundSize.turn).
    # Every request of the counted phase is timed (--queue-time all): what
    # the wrapper costs, microseconds, is nothing beside the 50 ms sleep, and
    # the default (on: the warm-up's requests after their connection's first)
    # left Agoo, which runs 2 of its 8 declared slots, 18 timed requests in a
    # warm-up sized by those 8; under CI's load one measurement had none, and
    # so no waiting/working split to read.
    # Returns the outcome and {[spec, workload] => measurement}.
    def measure(workloads, duration:, specs: configs.keys)
      out = arena("run", "--app", APP, "--servers", specs.join(" "), "--workload", workloads.join(","), "-c", CONNECTIONS.to_s,
        "-d", duration.to_s, "-w", "0.3", "--warmup-max", "0", "--rounds", "1", "--queue-time", "all", timeout: 180)
      assert out.status.success?, out.describe
      labels = specs.to_h { |spec| [label(spec), spec] }
      [out, out.measurements.select { |m| m["load"] }.to_h { |m| [[labels.fetch(m["server"]), m["workload"]], m] }]
    end

    # The label Arena gives a spec on this machine (its defaults filled in).
    def label(spec) = TestHelp.plan("--servers", spec, machine: Plan::Machine.current).servers.first.label

    def fill(slots) = [slots || CONNECTIONS, CONNECTIONS].min
  end
end
