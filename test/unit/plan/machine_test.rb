# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# How the cores are handed out: pinned by default, shared with --cpus shared,
# and the choice recorded with the plan (and so with every result).
class MachineTest < Minitest::Test
  def test_pinned_gives_the_engine_the_last_core_and_the_server_the_rest
    machine = Arena::Plan::Machine.new(cores: 4)
    assert_equal ["0-2", "3", 3, "pinned"], [machine.server_cpus, machine.engine_cpus, machine.server_cores, machine.cpus_mode]
    two = Arena::Plan::Machine.new(cores: 2)
    assert_equal ["0", "1", 1], [two.server_cpus, two.engine_cpus, two.server_cores]
  end

  def test_shared_pins_nothing_and_gives_the_server_every_core
    machine = Arena::Plan::Machine.new(cores: 2).with_cpus("shared")
    assert_nil machine.server_cpus
    assert_nil machine.engine_cpus
    assert_equal 2, machine.server_cores
    assert_equal({cores: 2, cpus: "shared", server_cpus: nil, engine_cpus: nil}, machine.to_h)
    assert_equal "0", machine.with_cpus("pinned").server_cpus
  end

  def test_one_core_is_never_pinned
    machine = Arena::Plan::Machine.new(cores: 1)
    assert_nil machine.server_cpus
    assert_equal 1, machine.server_cores
  end

  def test_the_flag_reaches_the_plan_and_its_servers
    plan = Arena::TestHelp.plan("--cpus", "shared", "--servers", "puma:workers=0", machine: Arena::Plan::Machine.new(cores: 2).freeze)
    assert_equal "shared", plan.machine.to_h[:cpus]
    assert_nil plan.machine.engine_cpus
    assert_equal "pinned", Arena::TestHelp.plan("--servers", "puma:workers=0").machine.to_h[:cpus]
  end

  def test_an_unknown_mode_is_a_usage_error
    assert_raises(OptionParser::InvalidArgument) { Arena::TestHelp.plan("--cpus", "all") }
    assert_raises(Arena::UsageError) { Arena::Plan::Machine.new(cores: 2).with_cpus("all") }
  end
end
