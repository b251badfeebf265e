# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "optparse"

# The docs are part of the product: docs/usage.md must name every command and
# every flag `arena run --help` prints, docs/servers.md every registered
# server and docs/scenarios.md every registered scenario, and nothing the code
# does not register. A new server, scenario or flag without its line fails here.
class DocsTest < Minitest::Test
  DOCS = File.expand_path("../../docs", __dir__)

  def doc(name) = File.read(File.join(DOCS, name))

  # The usage block: the first fenced block under "## Commands".
  def usage_block
    doc("usage.md")[/^## Commands\n+```\n(.*?)```/m, 1] || flunk("docs/usage.md has no usage block under \"## Commands\"")
  end

  def test_usage_names_every_flag_of_arena_run
    parser = OptionParser.new
    Arena::Planner::Builder.new.define(parser)
    # The flag column of each option line (descriptions may mention other flags).
    columns = parser.summarize.map(&:strip).grep(/\A-/).map { |line| line.split(/\s{2,}/).first }
    flags = columns.flat_map { |c| c.scan(/(?<![\w-])(--[a-z][\w-]*|-[a-z])\b/i).flatten }.uniq
    usage = usage_block
    missing = flags.reject { |flag| usage.match?(/(?<![\w-])#{Regexp.escape(flag)}(?![\w-])/) }
    assert_empty missing, "flags of `arena run` missing from docs/usage.md's usage block"
  end

  def test_every_command_is_in_the_usage_block
    usage = usage_block
    missing = Arena::CLI::COMMANDS.keys.reject { |name| usage.match?(/^arena #{name}\b/) }
    assert_empty missing, "commands missing from docs/usage.md's usage block"
  end

  # One "### name" heading per server.
  def test_servers_page_describes_every_registered_server
    described = doc("servers.md").scan(/^### (\S+)$/).flatten
    assert_equal Arena::Servers.registry.keys.sort, described.sort
  end

  def test_scenarios_table_lists_every_registered_scenario
    rows = doc("scenarios.md").lines.grep(/^\| `/).map { |l| l.split("|")[1].strip.delete("`") }
    assert_equal Arena::Scenarios.registry.keys.sort, rows.sort
  end
end
