# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/probes/machine_speed"
require "minitest/mock"

module Arena
  # The machine-speed reading: fixed work, timed in a process of its own on
  # the cores given, well under 50 ms of work; a reading against the run's
  # median, flagged beyond 15%.
  class MachineSpeedTest < Minitest::Test
    cover "Arena::Probes::MachineSpeed*"

    Reading = Probes::MachineSpeed::Reading

    def test_a_reading_on_a_core_is_fixed_work_well_under_50_ms
      spawn = Process.method(:spawn)
      pids = []
      reading = Process.stub(:spawn, ->(*args, **opts) { spawn.call(*args, **opts).tap { |pid| pids << pid } }) do
        Probes::MachineSpeed.read(cpus: "0")
      end
      refute_nil reading
      assert_operator reading.cpu_ms, :>, 0
      assert_operator reading.memory_ms, :>, 0
      # Each part is timed twice, the faster kept: its work is twice the total
      # at most, about 30 ms on this machine.
      assert_operator reading.total_ms, :<, 50, reading.inspect
      assert_equal 1, pids.size
      assert_raises(Errno::ECHILD, "its process reaped") { Process.waitpid(pids.first, Process::WNOHANG) }
    end

    def test_no_reading_where_the_cores_do_not_exist
      assert_nil Probes::MachineSpeed.read(cpus: "999")
    end

    def test_speed_against_the_median_and_the_flag_beyond_15_percent
      median = Probes::MachineSpeed.median_ms([Reading.new(cpu_ms: 5, memory_ms: 5), Reading.new(cpu_ms: 6, memory_ms: 6),
        Reading.new(cpu_ms: 4, memory_ms: 4), nil])
      assert_equal 10.0, median
      assert_equal 1.0, Reading.new(cpu_ms: 5, memory_ms: 5).speed(median)
      assert_equal 0.8, Reading.new(cpu_ms: 6.25, memory_ms: 6.25).speed(median)
      assert Reading.new(cpu_ms: 6.25, memory_ms: 6.25).off?(median), "25% slower"
      refute Reading.new(cpu_ms: 5.5, memory_ms: 5.5).off?(median), "9% slower"
      assert Reading.new(cpu_ms: 4, memory_ms: 4).off?(median), "25% faster"
      assert_nil Probes::MachineSpeed.median_ms([nil])
      assert_equal 11.0, Probes::MachineSpeed.median_ms([Reading.new(cpu_ms: 5, memory_ms: 5), Reading.new(cpu_ms: 6, memory_ms: 6)])
    end
  end
end
