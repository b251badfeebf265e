# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "shellwords"
require "yaml"
require "open3"

# The config files `arena tune` writes hold a rackup name exactly, whatever
# it contains; what a format cannot hold is refused in one line.
class ConfigQuotingTest < Minitest::Test
  AWKWARD = "my app; touch /tmp/x $(id) 'q'.ru"

  def file(key, settings, rackup) = Arena::Servers.fetch(key).config_file(settings, rackup: rackup)

  def exec_words(text) = Shellwords.split(text.lines.grep(/\Aexec /).first.delete_prefix("exec "))

  def test_scripts_are_shell_words_with_port_left_to_expand
    {"falcon" => {"count" => 2, "model" => "forked"}, "iodine" => {"workers" => 2, "threads" => 4},
     "agoo" => {"workers" => 2, "threads" => 4}}.each do |key, settings|
      text = file(key, settings, AWKWARD).text
      _, err, status = Open3.capture3("sh", "-n", stdin_data: text)
      assert status.success?, "#{key}: #{err}"
      words = exec_words(text)
      assert_equal AWKWARD, words.last, "#{key}: the rackup is one word"
      assert(words.any? { |w| w.include?("${PORT:-") }, "#{key}: $PORT still expands")
      out, = Open3.capture2("sh", "-c", text.sub("exec ", "printf '%s\\n' "), "sh")
      assert_equal AWKWARD, out.lines.last.chomp, "#{key}: the shell gives the rackup back unchanged"
    end
  end

  def test_thin_yaml_and_uwsgi_ini_hold_the_value_exactly
    yml = YAML.safe_load(file("thin", {"servers" => 2, "threaded" => false}, "my app: #1.ru").text)
    assert_equal ["my app: #1.ru", 2], [yml["rackup"], yml["servers"]]
    ini = file("uwsgi", {"processes" => 2}, "my app; x.ru").text
    assert_includes ini.lines, "rack = my app; x.ru\n"
  end

  def test_control_characters_and_uwsgi_magic_are_refused
    ["falcon", "iodine", "agoo", "thin", "uwsgi", "itsi"].each do |key|
      settings = Arena::Servers.fetch(key).settings.transform_values { |v| v.respond_to?(:call) ? 2 : v }
      error = assert_raises(Arena::UsageError, key) { file(key, settings, "x.ru\nservers: 99") }
      assert_match(/control character/, error.message)
    end
    ["$(HOME).ru", "%d.ru", "@(file).ru", " lead.ru"].each do |rackup|
      assert_raises(Arena::UsageError, rackup) { file("uwsgi", {"processes" => 2}, rackup) }
    end
  end
end
