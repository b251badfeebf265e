# frozen_string_literal: true

require_relative "arena_case"
require "arena"

module Arena
  # Every installed server on the app of known capacity
  # (test/fixtures/apps/capacity), in configs whose slots the test knows: what
  # Arena reads must agree with the limit physics sets before anything runs.
  class CapacityCase < ArenaCase
    APP = File.join(ROOT, "test/fixtures/apps/capacity")
    CONNECTIONS = 32

    # spec => [slots (nil: no fixed ceiling, the connections are), Ruby
    # processes serving (each runs Ruby on one core at a time: the GVL)].
    CONFIGS = {
      "puma:workers=2,threads=4" => [8, 2],
      "itsi:workers=2,threads=4" => [8, 2],
      "iodine:workers=2,threads=4" => [8, 2],
      "agoo:workers=2,threads=4" => [8, 2],
      "thin" => [1, 1],
      "thin:threaded=true" => [20, 1],
      "unicorn:workers=3" => [3, 3],
      "pitchfork:workers=3" => [3, 3],
      "passenger:pool=3" => [3, 3],
      "uwsgi:processes=3" => [3, 3],
      "falcon:count=1" => [nil, 1],
      "webrick" => [nil, 1]
    }.freeze

    # The configs whose server is installed here (Puma on JRuby is not run:
    # an app's own gems do not boot there).
    def configs
      CONFIGS.select do |spec, _|
        klass = Servers.fetch(spec.split(":").first)
        !Bundle::Overlay.gems_for(klass).empty? || klass.install(AppSource.builtin).found
      end
    end

    # One arena run of every config on `workload`: one round, short loads.
    def measure(workload, duration:)
      specs = configs.keys
      out = arena("run", "--app", APP, "--servers", specs.join(" "), "--workload", workload, "-c", CONNECTIONS.to_s,
        "-d", duration.to_s, "-w", "0.3", "--rounds", "1", timeout: 180)
      assert out.status.success?, out.describe
      labels = specs.to_h { |spec| [label(spec), spec] }
      [out, out.measurements.select { |m| m["load"] }.to_h { |m| [labels.fetch(m["server"]), m] }]
    end

    # The label Arena gives a spec on this machine (its defaults filled in).
    def label(spec) = TestHelp.plan("--servers", spec, machine: Machine.current).servers.first.label

    def fill(slots) = [slots || CONNECTIONS, CONNECTIONS].min

    def server_cores = Machine.current.server_cores
  end
end
