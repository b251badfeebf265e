# frozen_string_literal: true

require "test_helper"
require "prism"
require "yaml"

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
    arena/support/spawn_all.rb
    arena/system/watchdog_main.rb
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

  # Tests follow lib: lib/arena/X/Y.rb is tested by test/unit/X/Y_test.rb
  # (or X/Y_<aspect>_test.rb, one aspect of it), lib/arena/Y.rb by
  # test/unit/Y_test.rb, so a reader who opens a lib file knows where its test
  # is, and one who opens a test knows what it tests.
  TESTS = __dir__
  ROOT = File.expand_path("../..", __dir__)

  # Unit tests of the checkout, not of a lib file: the docs, the README,
  # this layout, the folders' order and the test lanes.
  OF_THE_CHECKOUT = %w[docs_test.rb folder_order_test.rb layout_test.rb readme_test.rb requires_test.rb test_lanes_test.rb].freeze

  # Tests not named for the lib file they test.
  SUBJECTS = {
    "app/builtin_app_test.rb" => "arena/app/arena.ru",
    "bundle/other_release_test.rb" => "arena/bundle/releases.rb",
    "servers/adapters_test.rb" => "arena/servers/base.rb"
  }.freeze

  # Lib files with behaviour and no test of their own: the test that covers each.
  COVERED_ELSEWHERE = YAML.load_file(File.join(ROOT, "test/support/covered_elsewhere.yml")).freeze

  def unit_tests = Dir[File.join(TESTS, "**/*_test.rb")].map { |f| f.delete_prefix("#{TESTS}/") }.sort

  # The lib file a unit test tests, or nil. A test in test/unit/ itself tests
  # the lib/arena/ file of its whole name (arena_test.rb: lib/arena.rb).
  def subject(test)
    return SUBJECTS[test] if SUBJECTS.key?(test)
    dir = File.dirname(test)
    words = File.basename(test, "_test.rb").split("_")
    return [(words == ["arena"]) ? "arena.rb" : "arena/#{words.join("_")}.rb"].find { |lib| behaviour?(lib) } if dir == "."
    words.size.downto(1).map { |n| "arena/#{dir}/#{words.first(n).join("_")}.rb" }.find { |lib| behaviour?(lib) }
  end

  # A lib file that defines a method.
  def behaviour?(lib)
    file = File.join(LIB, lib)
    File.file?(file) && defs(Prism.parse(File.read(file)).value).any?
  end

  def lib_files = Dir[File.join(LIB, "**/*.rb")].map { |f| f.delete_prefix("#{LIB}/") }.sort

  def test_every_unit_test_sits_in_the_folder_of_the_lib_file_it_tests
    stray = (unit_tests - OF_THE_CHECKOUT).reject { |test| subject(test) }
    assert_empty stray, "tests named for no lib file with behaviour: move each to test/unit/X/Y_test.rb " \
      "(or Y_<aspect>_test.rb) for lib/arena/X/Y.rb, or name its subject in SUBJECTS"
  end

  def test_every_lib_file_with_behaviour_has_its_test_or_names_the_test_that_covers_it
    tested = unit_tests.filter_map { |test| subject(test) }
    untested = lib_files.select { |lib| behaviour?(lib) } - tested - COVERED_ELSEWHERE.keys
    assert_empty untested, "lib files without test/unit/X/Y_test.rb: write it, or name the test that " \
      "covers the file in test/support/covered_elsewhere.yml"
  end

  def test_each_file_covered_elsewhere_has_no_test_of_its_own_and_its_test_exists
    tested = unit_tests.filter_map { |test| subject(test) }
    wrong = COVERED_ELSEWHERE.filter_map do |lib, test|
      next "#{lib}: has test/unit/ of its own now; drop it from the list" if tested.include?(lib)
      next "#{lib}: no such lib file with behaviour" unless behaviour?(lib)
      "#{lib}: #{test} does not exist" unless File.file?(File.join(ROOT, test))
    end
    assert_empty wrong
  end

  # Every def in a tree, nested ones included.
  def defs(node)
    found = node.is_a?(Prism::DefNode) ? [node] : []
    found + node.compact_child_nodes.flat_map { |child| defs(child) }
  end
end
