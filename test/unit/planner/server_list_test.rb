# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# --servers' specs into adapters: spaces or separate flags, each NAME with its
# settings, a +runtime tail and an @envelope tail.
class ServerListTest < Minitest::Test
  MACHINE = Arena::Plan::Machine.new(cores: 2).freeze

  def parse(*items) = Arena::Planner::ServerList.parse(items, machine: MACHINE)

  def test_each_spec_is_an_adapter_with_its_settings_runtime_and_envelope
    puma, unicorn, falcon = parse("puma:workers=2,threads=5+yjit@cpus=1  unicorn:workers=3", "falcon")
    assert_equal %w[puma unicorn falcon], [puma, unicorn, falcon].map(&:key)
    assert_equal [2, 5], puma.settings.values_at("workers", "threads")
    assert_equal ["yjit", "cpus=1"], [puma.runtime.to_s, puma.envelope.to_s]
    assert_equal [3, "default", "none"], [unicorn.settings["workers"], unicorn.runtime.to_s, unicorn.envelope.to_s]
    assert_equal [MACHINE], [puma, unicorn, falcon].map(&:machine).uniq
    assert_empty parse(" ", "")
  end

  def test_a_setting_without_a_value_or_a_name_is_one_line
    e = assert_raises(Arena::UsageError) { parse("puma:workers") }
    assert_equal "puma:workers: settings are NAME=VALUE pairs separated by commas", e.message
    assert_raises(Arena::UsageError) { parse("puma:=2") }
    assert_raises(Arena::UsageError) { parse("no-such-server") }
  end
end
