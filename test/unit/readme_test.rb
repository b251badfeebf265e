# frozen_string_literal: true

require_relative "../test_helper"
require "arena"

# The README is a newcomer's first five minutes: short, in step with the
# commands the CLI has, and free of any one machine's diary. Every command and
# flag, the servers and the scenarios are kept in step with the code by
# docs_test.rb, against docs/.
class ReadmeTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  README = File.read(File.join(ROOT, "README.md"))
  CHANGELOG = File.read(File.join(ROOT, "CHANGELOG.md"))

  def test_readme_reads_in_five_minutes
    assert_operator README.lines.size, :<=, 200, "README.md has #{README.lines.size} lines"
  end

  def test_readme_names_the_two_commands_and_the_answer
    assert_match(/^script\/arena\b/, README)
    assert_match(/^script\/test\b/, README)
    assert_match(/^bundle exec exe\/arena tune --app /, README)
  end

  # Agent is started by Arena over SSH, never typed by a user.
  def test_main_commands_table_lists_every_command_a_user_types
    table = README[/^## Main commands\n.*?(?=^## )/m] || flunk("README has no section \"Main commands\"")
    listed = table.lines.grep(/^\| `arena /).map { |line| line[/`arena ([a-z]+)/, 1] }
    assert_equal (Arena::CLI::COMMANDS.keys - ["agent"]).sort, listed.sort
  end

  def test_changelog_is_kept_by_release
    versions = CHANGELOG.scan(/^## \[([^\]]+)\]/).flatten
    assert_equal "Unreleased", versions.first
    assert_includes versions, Arena::VERSION, "CHANGELOG.md has no section for #{Arena::VERSION}"
    headings = CHANGELOG.scan(/^### (.+)$/).flatten.uniq
    assert_empty headings - %w[Added Changed Deprecated Removed Fixed Security], "Keep a Changelog's headings only"
  end

  def test_every_linked_doc_exists
    README.scan(/\]\(((?:docs\/)?[\w.\/-]+\.md)\)/).flatten.each do |path|
      assert File.exist?(File.join(ROOT, path)), "README links #{path}, which does not exist"
    end
  end

  # A reader cannot open a session, an issue or a run's date, and should not need to.
  DIARY = /\bsessions?\b|fresh-check|\bissue\s+#?\d+|\b20\d\d-\d\d-\d\d\b|closing note/i

  # The answer's standing line dates the server's releases: facts of the gem, not of a run.
  def self.undated(line) = line.match?(/\A\s*standing: /) ? line.gsub(/\b20\d\d-\d\d-\d\d\b/, "DATE") : line

  def test_readme_and_changelog_keep_no_diary
    {"README.md" => README, "CHANGELOG.md" => CHANGELOG}.each do |name, text|
      hits = text.lines.each_with_index.select { |line, _| ReadmeTest.undated(line).match?(DIARY) }
      assert_empty hits.map { |line, i| "#{name}:#{i + 1}: #{line.strip}" }, "#{name} keeps a diary"
    end
    assert ReadmeTest.undated("note: run on 2026-12-06").match?(DIARY), "a run's date is still a diary"
  end
end
