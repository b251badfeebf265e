# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # What `arena tune` knows of a server lives in its adapter
  # (servers/tuning.rb): a tunable adapter without its starting heuristic
  # (and its source), its slots and its config file would tune silently from
  # its minimum bounds, with no slot ceiling and no file to commit.
  class TuningTest < Minitest::Test
    def tunable = Servers.all.reject { |klass| klass.tunables.empty? }

    def test_every_tunable_adapter_declares_its_start_slots_and_config_file
      machine = Plan::Machine.new(cores: 2)
      assert_operator tunable.size, :>=, 10
      tunable.each do |klass|
        start = klass.tune_start
        refute_nil start, "#{klass.key}: no tune_start (the search's starting heuristic)"
        refute_empty start.source.to_s, "#{klass.key}: tune_start without its documented source"
        assert_equal klass.tunables.keys.sort, start.call(machine.server_cores).keys.sort, "#{klass.key}: the start names every tunable"
        refute_nil klass.slots, "#{klass.key}: no slots (or no_slots with why)"
        adapter = klass.new(machine: machine)
        slots = klass.slots
        if slots.count
          refute_nil slots.words, "#{klass.key}: slots without words"
          assert_operator slots.call(adapter.settings), :>=, 1, "#{klass.key}: slots of its defaults"
        else
          refute_empty slots.why.to_s, "#{klass.key}: no_slots says why"
        end
        file = klass.config_file(adapter.settings, rackup: "config.ru")
        refute_nil file, "#{klass.key}: no config_file"
        refute_empty file.text
        refute_empty file.command
      end
    end

    def test_tune_names_no_server
      names = Servers.all.map(&:key).reject { |k| k.include?("_") || k.include?("-") }
      files = Dir[File.expand_path("../../../lib/arena/tune/*.rb", __dir__)] + [File.expand_path("../../../lib/arena/tune.rb", __dir__)]
      files.each do |path|
        code = File.readlines(path).reject { |line| line.strip.start_with?("#") }.join
        names.each { |name| refute_match(/\b#{name}\b/i, code, "#{File.basename(path)} names #{name}") }
      end
    end
  end
end
