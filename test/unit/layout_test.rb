# frozen_string_literal: true

require "test_helper"
require "prism"

# Names follow folders: a file under lib/arena/X/ opens Arena::X and nothing
# else at its top, so a reader who knows a constant knows its folder, and one
# who opens a folder knows the names in it. lib/arena.rb lists folders, not files.
class LayoutTest < Minitest::Test
  LIB = File.expand_path("../../lib", __dir__)

  # Files that are not Arena's code in Arena's process: the built-in app's
  # middleware runs inside the user's app; the two scripts run as processes
  # of their own with plain Ruby and no gems.
  NOT_ARENA = %w[
    arena/app/arena_timing.rb
    arena/launch/watchdog_main.rb
    arena/support/spawn_all.rb
  ].freeze

  # No method longer than this many lines (def to end): a longer one does
  # several jobs, and its parts want names of their own.
  METHOD_LINES = 30

  def files = Dir[File.join(LIB, "arena/*/**/*.rb")].map { |f| f.delete_prefix("#{LIB}/") }.sort

  def namespace(path) = path.split("/")[1].split("_").map(&:capitalize).join

  # The constants a file defines directly inside `module Arena`: its class,
  # module and constant-assignment nodes there.
  def opened(path)
    root = Prism.parse(File.read(File.join(LIB, path))).value
    arena = root.statements.body.find { |n| n.is_a?(Prism::ModuleNode) && n.constant_path.slice == "Arena" }
    return nil unless arena
    (arena.body&.body || []).filter_map do |n|
      case n
      when Prism::ClassNode, Prism::ModuleNode then n.constant_path.slice.split("::").first
      when Prism::ConstantWriteNode then n.name.to_s
      end
    end.uniq
  end

  def test_every_file_opens_only_its_folders_namespace
    wrong = files.filter_map do |path|
      names = opened(path)
      next if names.nil? && NOT_ARENA.include?(path)
      next "#{path}: does not open module Arena" if names.nil?
      stray = names - [namespace(path)]
      "#{path}: defines Arena::#{stray.join(", Arena::")}, not under Arena::#{namespace(path)}" unless stray.empty?
    end
    assert_empty wrong
    share = (files.size - NOT_ARENA.size).fdiv(files.size)
    assert_operator share, :>=, 0.95, "#{(share * 100).round(1)}% of lib/arena/*/ files under their folder's namespace"
  end

  def test_the_exempt_files_exist_and_open_no_arena_namespace
    NOT_ARENA.each do |path|
      assert File.file?(File.join(LIB, path)), "#{path} is gone: drop it from NOT_ARENA"
      assert_nil opened(path), "#{path} opens module Arena: it is Arena's code, check it like the rest"
    end
  end

  def test_arena_rb_requires_folders_not_files
    requires = File.read(File.join(LIB, "arena.rb")).scan(/^require_relative "arena\/(.+)"$/).flatten
    assert_operator requires.size, :<=, 30
    nested = requires.select { |r| r.include?("/") }
    assert_empty nested, "lib/arena.rb requires files inside folders; require them from the folder's own file"
    # app/ is the built-in app, not Arena's code; commands/ is loaded a
    # command at a time by the CLI.
    folders = Dir[File.join(LIB, "arena/*/")].map { |d| File.basename(d) } - %w[app commands]
    missing = folders.reject { |f| File.file?(File.join(LIB, "arena/#{f}.rb")) }
    assert_empty missing, "folders without a require file of their own"
  end

  def test_no_method_is_longer_than_method_lines
    long = Dir[File.join(LIB, "**/*.rb")].sort.flat_map do |file|
      path = file.delete_prefix("#{LIB}/")
      defs(Prism.parse(File.read(file)).value).filter_map do |node|
        lines = node.location.end_line - node.location.start_line + 1
        "#{path}:#{node.location.start_line} #{node.name} (#{lines} lines)" if lines > METHOD_LINES
      end
    end
    assert_empty long, "methods over #{METHOD_LINES} lines: split them into named parts"
  end

  # Every def in a tree, nested ones included.
  def defs(node)
    found = node.is_a?(Prism::DefNode) ? [node] : []
    found + node.compact_child_nodes.flat_map { |child| defs(child) }
  end
end
