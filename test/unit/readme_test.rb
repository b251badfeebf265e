# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "optparse"

# The README is part of the product: its tables of servers and scenarios and
# its usage block must name everything the code registers, and nothing it
# does not. A new server, scenario or flag without its README line fails here.
class ReadmeTest < Minitest::Test
  README = File.read(File.expand_path("../../README.md", __dir__))

  # The first cells of the table that follows a heading.
  def first_cells(heading)
    section = README[/^##+ #{Regexp.escape(heading)}.*?(?=^## )/m] || flunk("README has no section #{heading.inspect}")
    section.lines.grep(/^\|/).drop(2).map { |l| l.split("|")[1].strip.delete("`") }
  end

  def test_server_table_lists_every_registered_server
    assert_equal Arena::Servers.registry.keys.sort, first_cells("Servers").sort
  end

  def test_scenario_table_lists_every_registered_scenario
    assert_equal Arena::Scenarios.registry.keys.sort, first_cells("Scenarios").sort
  end

  def test_usage_names_every_flag_of_arena_run
    usage = README[/^## Usage\n+```\n(.*?)```/m, 1] || flunk("README has no usage block")
    parser = OptionParser.new
    Arena::PlanBuilder.new.define(parser)
    # The flag column of each option line (descriptions may mention other flags).
    columns = parser.summarize.map(&:strip).grep(/\A-/).map { |line| line.split(/\s{2,}/).first }
    flags = columns.flat_map { |c| c.scan(/(?<![\w-])(--[a-z][\w-]*|-[a-z])\b/i).flatten }.uniq
    missing = flags.reject { |flag| usage.match?(/(?<![\w-])#{Regexp.escape(flag)}(?![\w-])/) }
    assert_empty missing, "flags of `arena run` missing from the README's usage block"
  end

  def test_every_command_is_in_the_usage_block
    usage = README[/^## Usage\n+```\n(.*?)```/m, 1]
    Arena::CLI::COMMANDS.each_key { |name| assert_match(/^arena #{name}\b/, usage, "arena #{name}") }
  end
end
