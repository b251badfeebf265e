# frozen_string_literal: true

require "test_helper"
require "prism"

# Each file requires what it uses: every Arena constant a file of lib/arena
# references is defined by the file itself or by one it reaches through its
# own require_relatives (transitively), so it loads alone and a reader sees
# its dependencies at its top. A folder's file (lib/arena/X.rb) then only
# lists its folder's files, in any order.
#
# Read from the parsed code: the constants each file defines (class, module,
# constant assignment, and the methods a class or module answers itself:
# `def self.x`, `class << self`, or every def under `module_function` or
# `extend self`), and each reference, resolved as Ruby does lexically (the
# innermost nesting first, then the longest prefix of its path some file
# defines). A call on a constant (`Stats.median`) needs the file that
# defines that method when one does. A class or module only opened to nest
# things in (nothing of its own: no method, no bare call such as `extend`)
# is not defined by that file.
#
# What it does not catch: constants named in strings (`const_get`, the CLI's
# commands), a bare name found through a superclass or an included module
# rather than lexically, methods called on an object rather than on a
# constant, a require_relative inside a method (a lazy load does not count;
# an autoload does), and whether a constant used while a class body loads is
# required before that line (bench/requires_alone loads each file alone for
# that).
class RequiresTest < Minitest::Test
  LIB = File.expand_path("../../lib", __dir__)

  # The folders not converted yet (and "." for lib/arena.rb and the files
  # beside the folders): their files are not checked, and a reference into
  # one of their files that lib/arena.rb loads passes (it loads them in
  # order, as before). This list only shrinks: a folder whose files all
  # require what they use leaves it.
  PENDING = %w[].freeze

  # Plug-ins: each registry's load_all (lib/arena.rb) requires them all, in
  # the order of their files, which is the order they register in; a file
  # that required one would change it. A reference to one passes.
  PLUGIN = %r{/arena/(scenarios|presets|servers)/(?!(base|at|figures|measuring|round_size|settle|warmup|presets)\.rb)[a-z_0-9]+\.rb\z}

  # What a file defines and opens (full names), its references
  # [nesting, names, line, method] and the files its require_relatives name.
  Parsed = Struct.new(:path, :defines, :opens, :refs, :requires)

  # A reference this file does not reach.
  Missing = Struct.new(:file, :line, :name, :definers) do
    def to_s = "#{rel(file)}:#{line} #{name} (defined in #{definers.map { |d| rel(d) }.join(", ")})"

    def rel(path) = path.delete_prefix("#{LIB}/")
  end

  def test_each_file_requires_what_it_uses
    missing = files.reject { |f| PENDING.include?(folder_of(f)) }.flat_map { |f| missing(f) }
    assert_empty missing.map(&:to_s), "require_relative the file that defines each (or, for a folder " \
      "not converted yet, leave it in PENDING)"
  end

  def test_each_pending_folder_still_misses_something
    done = PENDING.select do |folder|
      files.select { |f| folder_of(f) == folder }.all? { |f| missing(f, pending: PENDING - [folder]).empty? }
    end
    assert_empty done, "these folders' files require all they use: drop them from PENDING"
  end

  def test_a_converted_folders_file_lists_its_folder_and_nothing_else
    wrong = (Dir[File.join(LIB, "arena/*/")].map { |d| File.basename(d) } - PENDING - %w[app commands]).reject do |folder|
      lines = File.read(File.join(LIB, "arena/#{folder}.rb")).lines.map(&:strip).reject { |l| l.empty? || l.start_with?("#") }
      lines.all? { |l| l.match?(%r{\Arequire_relative "#{folder}/[a-z_0-9/]+"\z}) }
    end
    assert_empty wrong, "a folder's file holds only require_relative lines of its own folder's files"
  end

  # A qualified name whose first part Ruby finds in a nearer namespace than
  # the one that defines the rest: `Report::Brief` inside Commands::Run is
  # Commands::Report::Brief (no such thing) once commands/report.rb is loaded.
  def test_no_qualified_name_is_shadowed_by_a_nearer_namespace
    wrong = files.flat_map do |file|
      parsed[file].refs.filter_map do |nesting, names, line, _|
        shadow = shadowed(nesting, names)
        "#{file.delete_prefix("#{LIB}/")}:#{line} #{names.join("::")}: #{shadow}" if shadow
      end
    end
    assert_empty wrong, "name these from Arena (Arena::Report::Brief)"
  end

  # "Arena::Commands::Report, not Arena::Report" for a shadowed name, else nil.
  def shadowed(nesting, names)
    return nil if names.size < 2 || %w[:: Arena].include?(names.first)
    found = (nesting.reverse.map { |n| "#{n}::#{names.first}" } << names.first).select { |c| definers.key?(c) }
    return nil if found.size < 2 || definers.key?("#{found.first}::#{names[1]}")
    meant = found.drop(1).find { |c| definers.key?("#{c}::#{names[1]}") }
    "#{found.first}, not #{meant}" if meant
  end

  def files
    @files ||= ([File.join(LIB, "arena.rb")] + Dir[File.join(LIB, "arena/**/*.rb")]).sort
      .reject { |f| f.include?("/arena/app/") }
  end

  # The folder a file is in (a folder's file, lib/arena/X.rb, is X's), "."
  # for lib/arena.rb and the other files beside the folders.
  def folder_of(file)
    rel = file.delete_prefix("#{LIB}/arena/")
    return rel.split("/").first if rel.include?("/")
    File.directory?(file.delete_suffix(".rb")) ? File.basename(rel, ".rb") : "."
  end

  # The references a file does not reach; one into a folder in `pending` passes.
  def missing(file, pending: PENDING)
    reach = reach(file)
    parsed[file].refs.filter_map do |nesting, names, line, meth|
      name = target(nesting, names, meth) or next
      definers = self.definers.fetch(name)
      next if definers.any? { |d| reach[d] || (pending.include?(folder_of(d)) && loaded[d]) }
      next if definers.all? { |d| d.match?(PLUGIN) } && !file.match?(PLUGIN)
      Missing.new(file, line, name, definers)
    end.uniq(&:name)
  end

  # What lib/arena.rb loads, through the folders' files.
  def loaded = @loaded ||= reach(File.join(LIB, "arena.rb"))

  def reach(file, seen = {})
    return seen if seen[file]
    seen[file] = true
    parsed[file]&.requires&.each { |r| reach(r, seen) }
    seen
  end

  def parsed = @parsed ||= files.to_h { |f| [f, parse(f)] }

  def parse(file)
    parsed = Parsed.new(file, [], [], [], [])
    walk(Prism.parse_file(file).value, [], parsed, false)
    parsed
  end

  def walk(node, nesting, p, in_def)
    case node
    when Prism::ClassNode, Prism::ModuleNode then namespace(node, nesting, p, in_def)
    when Prism::ConstantWriteNode
      p.defines << full(nesting, node.name.to_s)
      walk(node.value, nesting, p, in_def)
    when Prism::ConstantReadNode, Prism::ConstantPathNode
      names = path_names(node)
      names ? p.refs << [nesting, names, node.location.start_line, nil] : children(node, nesting, p, in_def)
    when Prism::DefNode then node.body && walk(node.body, nesting, p, true)
    when Prism::CallNode then call(node, nesting, p, in_def)
    else children(node, nesting, p, in_def)
    end
  end

  def children(node, nesting, p, in_def) = node.compact_child_nodes.each { |c| walk(c, nesting, p, in_def) }

  def namespace(node, nesting, p, in_def)
    name = full(nesting, node.constant_path.slice)
    superclass = node.is_a?(Prism::ClassNode) && node.superclass
    ((superclass || body(node).any? { |n| own?(n) }) ? p.defines : p.opens) << name
    walk(superclass, nesting, p, in_def) if superclass
    p.defines.concat(singleton_defs(node).map { |m| "#{name}.#{m}" })
    walk(node.body, nesting + [name], p, in_def) if node.body
  end

  def body(node) = node.body.respond_to?(:body) ? node.body.body : []

  # What makes a class or module this file's own, not a namespace it only
  # opens: a method, `class << self`, or a bare call (extend, attr_reader, declare).
  def own?(node)
    node.is_a?(Prism::DefNode) || node.is_a?(Prism::SingletonClassNode) || (node.is_a?(Prism::CallNode) && node.receiver.nil?)
  end

  # The methods a class or module answers itself.
  def singleton_defs(node)
    all = body(node).any? { |n| n.is_a?(Prism::CallNode) && n.receiver.nil? && (module_function?(n) || extend_self?(n)) }
    body(node).flat_map do |n|
      next [n.name] if n.is_a?(Prism::DefNode) && (all || n.receiver.is_a?(Prism::SelfNode))
      next [] unless n.is_a?(Prism::SingletonClassNode) && n.expression.is_a?(Prism::SelfNode)
      body(n).grep(Prism::DefNode).map(&:name)
    end
  end

  def module_function?(call) = call.name == :module_function && call.arguments.nil?

  def extend_self?(call) = call.name == :extend && call.arguments&.arguments&.first.is_a?(Prism::SelfNode)

  # A call on a constant is a reference to that constant's method.
  def call(node, nesting, p, in_def)
    required = required_path(node, p.path) unless in_def
    p.requires << required if required
    receiver = node.receiver
    if (receiver.is_a?(Prism::ConstantReadNode) || receiver.is_a?(Prism::ConstantPathNode)) && (names = path_names(receiver))
      p.refs << [nesting, names, node.location.start_line, node.name.to_s]
      return [node.arguments, node.block].compact.each { |c| walk(c, nesting, p, in_def) }
    end
    children(node, nesting, p, in_def)
  end

  # The file a require_relative of a literal names, or an autoload of
  # File.expand_path(literal, __dir__) (loaded when first used).
  def required_path(node, file)
    args = node.arguments&.arguments || []
    literal = if node.name == :require_relative && node.receiver.nil? then args.first
    elsif node.name == :autoload && args[1].is_a?(Prism::CallNode) && args[1].name == :expand_path
      args[1].arguments&.arguments&.first
    end
    File.expand_path("#{literal.unescaped}.rb", File.dirname(file)) if literal.is_a?(Prism::StringNode)
  end

  def full(nesting, slice)
    return slice.delete_prefix("::") if slice.start_with?("::")
    nesting.empty? ? slice : "#{nesting.last}::#{slice}"
  end

  # ["Stats", "Histogram"] for Stats::Histogram, ["::", "JSON"] for ::JSON;
  # nil for a path on an expression (`foo.class::X`).
  def path_names(node)
    names = []
    while node.is_a?(Prism::ConstantPathNode)
      names.unshift(node.name.to_s)
      node = node.parent
    end
    return nil unless node.nil? || node.is_a?(Prism::ConstantReadNode)
    names.unshift(node ? node.name.to_s : "::")
  end

  # Constant (or "Constant.method") => the files that define it; a
  # namespace no file defines counts as defined by each file that opens it.
  def definers
    @definers ||= begin
      defined = Hash.new { |h, k| h[k] = [] }
      opened = Hash.new { |h, k| h[k] = [] }
      parsed.each_value do |p|
        p.defines.uniq.each { |c| defined[c] << p.path }
        p.opens.uniq.each { |c| opened[c] << p.path }
      end
      opened.merge(defined)
    end
  end

  # The constant a reference names, or "Constant.method" when a file defines
  # that method; nil when it names no Arena constant.
  def target(nesting, names, meth)
    name = resolve(nesting, names)
    (name && meth && definers.key?("#{name}.#{meth}")) ? "#{name}.#{meth}" : name
  end

  def resolve(nesting, names)
    return nil if names.first == "::" && names[1] != "Arena"
    names = names.drop(1) if names.first == "::"
    first = (names.first == "Arena") ? "Arena" : (nesting.reverse.map { |n| "#{n}::#{names.first}" } << names.first).find { |c| definers.key?(c) }
    return nil unless first&.start_with?("Arena")
    path = [first, *names.drop(1)]
    path.size.downto(1).map { |n| path.first(n).join("::") }.find { |c| c != "Arena" && definers.key?(c) }
  end
end
