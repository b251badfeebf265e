# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/session"
require "tmpdir"

module Arena
  # A --loader-hosts run records the engine argv the way a local run does
  # (issue 36): the fleet's argv is the whole settings as one engine's flags,
  # so the rules that read a level's connections from it (Breakpoint's
  # levels, Sustained's closed maximum) read the same number either way.
  class LoaderHostsRecordsTest < Minitest::Test
    TARGET = "http://198.18.77.1:3000/server"

    def setup
      @dir = Dir.mktmpdir("fleet")
    end

    def teardown = FileUtils.rm_rf(@dir)

    # As Scenarios::Measuring records it: the argv without the program name.
    def recorded_argv(connections)
      fleet = Remote::LoaderFleet.new(channels: [], allow: "198.18.77.1", dir: @dir)
      fleet.argv(TARGET, Load::Settings.build(connections: connections, threads: 2, duration: 1.0))[1..]
    end

    def measurement(scenario, argv, p99: 40_000)
      Results::Measurement.from_h({"server" => "puma", "scenario" => scenario, "variant" => "c", "engine_argv" => argv,
        "load" => {"schema" => "arena-load/2", "throughput_rps" => 1000, "duration_s" => 1.0, "requests" => {"completed" => 1000},
                   "errors" => {"total" => 0}, "latency_us" => {"count" => 1000, "p99" => p99, "mean" => 20_000}}})
    end

    def test_the_fleet_records_an_argv_of_strings
      argv = recorded_argv(16)
      assert argv.all?(String), "every element a String: #{argv.first(3).inspect}"
      assert_equal "16", argv[argv.index("-c") + 1]
      assert_equal TARGET, argv.last
      assert_includes argv, "--allow-remote", "as a --server-host run records it"
    end

    def test_a_breakpoint_level_reads_its_connections_from_a_fleet_record
      level = Verdicts::Breakpoint.level(measurement("breakpoint", recorded_argv(24)), 100)
      assert_equal 24, level.connections
    end

    def test_sustained_reads_the_closed_maximum_s_connections_from_a_fleet_record
      figures = Scenarios::Sustained.closed_figures(measurement("sustained", recorded_argv(12)))
      assert_equal 12, figures["closed_connections"]
      assert_equal 1000.0, figures["closed_max_rps"]
    end
  end
end
