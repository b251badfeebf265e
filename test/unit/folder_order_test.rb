# frozen_string_literal: true

require "test_helper"
require "prism"

# Arrows point down: a folder of lib/arena/ references only folders below it
# in ORDER. An arrow is a constant reference that names another folder's
# namespace (`Report::Svg`, `Arena::Tune::Trial`, `Stats.median`), read from
# the parsed code, so comments and strings do not count. docs/ARCHITECTURE.md
# lists the same order.
class FolderOrderTest < Minitest::Test
  LIB = File.expand_path("../../lib/arena", __dir__)
  DOC = File.expand_path("../../docs/ARCHITECTURE.md", __dir__)

  # Bottom to top: each folder may use the ones before it. (app/ is the
  # built-in app, which runs outside Arena's namespace.)
  ORDER = %w[
    support system stats verdicts results probes load plan verify presets bundle servers fronts launch remote
    scenarios planner run report tune agent traffic commands
  ].freeze

  # The arrows against ORDER not cut yet, "from -> to" => how many references.
  # This list only shrinks: a new arrow fails, and so does one that is gone
  # or now has fewer references (lower its count, or drop it).
  ALLOWED = {}.freeze

  # One reference from a file's code to a folder's namespace.
  Arrow = Struct.new(:from, :to, :file, :line) do
    def key = "#{from} -> #{to}"

    def to_s = "#{file}:#{line} #{key}"
  end

  def test_every_folder_has_its_place
    folders = Dir[File.join(LIB, "*/")].map { |d| File.basename(d) } - %w[app]
    assert_empty folders - ORDER, "folders missing from ORDER"
    assert_empty ORDER - folders, "ORDER names folders that are gone"
  end

  def test_no_arrow_points_up_but_the_allowed_ones
    up = upward.reject { |a| ALLOWED.key?(a.key) }
    assert_empty up.map(&:to_s), "arrows against ORDER (bottom to top: #{ORDER.join(", ")})"
  end

  def test_the_allowed_arrows_are_all_still_there_at_their_counts
    counts = upward.group_by(&:key).transform_values(&:size)
    changed = ALLOWED.reject { |key, n| counts[key] == n }.map { |key, n| "#{key}: allowed #{n}, found #{counts[key].to_i}" }
    assert_empty changed, "the allowlist only shrinks: lower the count or drop the line"
  end

  def test_the_architecture_page_lists_the_same_order
    listed = File.read(DOC)[/^Bottom to top: (.+?)\.$/m, 1]
    refute_nil listed, "docs/ARCHITECTURE.md has no 'Bottom to top: ...' line"
    assert_equal ORDER, listed.split(/,\s*/)
  end

  def upward = @upward ||= arrows.select { |a| ORDER.index(a.to) > ORDER.index(a.from) }

  def arrows
    ORDER.flat_map do |folder|
      Dir[File.join(LIB, folder, "**/*.rb")].sort.flat_map do |file|
        refs(file).filter_map do |name, line|
          to = NAMESPACES[name]
          Arrow.new(folder, to, file.delete_prefix("#{File.dirname(LIB, 2)}/"), line) if to && to != folder
        end
      end
    end
  end

  NAMESPACES = ORDER.to_h { |f| [f.split("_").map(&:capitalize).join, f] }.freeze

  # [first name, line] of each constant reference in a file. A name the file
  # defines itself (a nested `Plan` struct) is its own, not the folder's.
  def refs(file)
    root = Prism.parse_file(file).value
    own = defined_names(root)
    found = []
    collect(root, found)
    found.reject { |name, _, bare| bare && own.include?(name) }
  end

  def defined_names(node)
    here = case node
    when Prism::ClassNode, Prism::ModuleNode then [node.constant_path.slice.split("::").last]
    when Prism::ConstantWriteNode then [node.name.to_s]
    else []
    end
    here + node.compact_child_nodes.flat_map { |c| defined_names(c) }
  end

  # The first name of each constant path (after a leading Arena::), and
  # whether it is bare (resolved lexically, so a nested name can shadow it).
  # A class or module's own name is a definition, not a reference.
  def collect(node, found)
    case node
    when Prism::ConstantPathNode then path_ref(node, found)
    when Prism::ConstantReadNode then found << [node.name.to_s, node.location.start_line, true]
    when Prism::ClassNode, Prism::ModuleNode
      [(node.superclass if node.is_a?(Prism::ClassNode)), node.body].compact.each { |c| collect(c, found) }
    else node.compact_child_nodes.each { |c| collect(c, found) }
    end
  end

  def path_ref(node, found)
    line = node.location.start_line
    names = []
    while node.is_a?(Prism::ConstantPathNode)
      names.unshift(node.name.to_s)
      node = node.parent
    end
    return collect(node, found) unless node.nil? || node.is_a?(Prism::ConstantReadNode)
    names.unshift(node.name.to_s) if node
    bare = !node.nil? && names.first != "Arena"
    names.shift if names.first == "Arena"
    found << [names.first, line, bare] if names.first
  end
end
