# frozen_string_literal: true

require "ripper"
require_relative "plan"

module Arena
  class Plan
    # Reads the settings a server config file sets (config/puma.rb's
    # `threads` and `workers`, config/unicorn.rb's `worker_processes`) by
    # parsing it, never running it: the file is the user's code, and Arena's
    # process runs none of it. Ripper's tree is walked for the calls named
    # and each argument is evaluated by a small rule set that covers what
    # generated and hand-written configs use: number and string literals,
    # local variables assigned before, ENV.fetch("X", default),
    # ENV.fetch("X") { default }, ENV["X"], a || b, Integer(x), x.to_i, and
    # Concurrent/Etc's processor counts (the cores). A condition (`if`,
    # `unless`, modifiers) it can evaluate decides; one it cannot is taken as
    # true and said in `unknown`. What it cannot evaluate is nil, said too.
    class ConfigReader
      CORES = %w[physical_processor_count processor_count nprocessors available_processor_count].freeze

      # calls: {method name => what its arguments were: [[values], ...]}; unknown: what could not be read.
      Read = Struct.new(:calls, :unknown, keyword_init: true) do
        def last(name) = calls[name]&.last
      end

      # env: the environment the server would read (ENV and --env); cores: what a processor count reads.
      def initialize(env:, cores:)
        @env = env
        @cores = cores
      end

      # text: the file's Ruby; names: the calls to record.
      def call(text, names:)
        @vars = {}
        @calls = Hash.new { |h, k| h[k] = [] }
        @unknown = []
        @names = names
        tree = Ripper.sexp(text)
        return Read.new(calls: {}, unknown: ["not Ruby that parses"]) unless tree
        statements(tree[1])
        Read.new(calls: @calls.to_h, unknown: @unknown.uniq)
      end

      # One expression's value by the same rules (an ERB tag of database.yml:
      # `ENV.fetch("RAILS_MAX_THREADS") { 5 }`), or nil when it cannot be told.
      def evaluate(text)
        @vars = {}
        tree = Ripper.sexp(text.to_s)
        v = tree && value(Array(tree[1]).last)
        (v.nil? || v.equal?(UNKNOWN)) ? nil : v
      end

      private

      UNKNOWN = Object.new.freeze

      def statements(list)
        Array(list).each { |s| statement(s) }
      end

      def statement(node)
        return unless node.is_a?(Array)
        case node.first
        when :assign then assign(node)
        when :command then command(node[1], node[2])
        when :method_add_arg then (node[1].first == :fcall) && command(node[1][1], node[2].is_a?(Array) ? node[2][1] : nil)
        when :if, :elsif, :unless then conditional(node)
        when :if_mod, :unless_mod then modifier(node)
        when :bodystmt, :begin then statements((node[1].is_a?(Array) && node[1].first.is_a?(Array)) ? node[1] : [node[1]])
        when :paren, :stmts_add then statements(node[1])
        end
      end

      def assign(node)
        target = node[1]
        return unless target.first == :var_field && target[1]&.first == :@ident
        @vars[target[1][1]] = value(node[2])
      end

      def command(ident, args)
        return unless ident.is_a?(Array) && @names.include?(ident[1])
        values = arguments(args).map { |a| value(a) }
        values.each { |v| @unknown << "#{ident[1]}'s argument" if v.equal?(UNKNOWN) }
        @calls[ident[1]] << values.map { |v| v.equal?(UNKNOWN) ? nil : v }
      end

      def conditional(node)
        test = truth(node[1])
        negate = node.first == :unless
        taken = test.nil? || (negate ? !test : test)
        statements(node[2]) if taken
        statement(node[3]) if node[3] && (test.nil? || !taken)
        statements(node[3][1]) if node[3]&.first == :else && (test.nil? || !taken)
      end

      def modifier(node)
        test = truth(node[1])
        taken = test.nil? || ((node.first == :unless_mod) ? !test : test)
        statement(node[2]) if taken
      end

      # true, false, or nil when it cannot be told (then the branch is taken).
      def truth(node)
        if node.first == :binary && %i[== != > < >= <=].include?(node[2])
          a = value(node[1])
          b = value(node[3])
          return nil if a.equal?(UNKNOWN) || b.equal?(UNKNOWN)
          a, b = [a.to_i, b.to_i] if [a, b].any?(Integer)
          return a.public_send(node[2], b)
        end
        v = value(node)
        return nil if v.equal?(UNKNOWN)
        !v.nil? && v != false
      rescue ArgumentError, NoMethodError
        nil
      end

      def arguments(args)
        return [] unless args.is_a?(Array)
        args = args[1] if args.first == :args_add_block
        args = args[1] if args.first == :arg_paren
        args = args[1] if args.is_a?(Array) && args.first == :args_add_block
        args.is_a?(Array) ? args.reject { |a| a == false } : []
      end

      def value(node)
        return UNKNOWN unless node.is_a?(Array)
        case node.first
        when :@int then Integer(node[1])
        when :string_literal then string(node)
        when :symbol_literal then node.dig(1, 1, 1)&.to_sym || UNKNOWN
        when :var_ref then variable(node[1])
        when :paren then value(Array(node[1]).last)
        when :binary then binary(node)
        when :aref then (env_const?(node[1]) && key(node[2])) ? @env[key(node[2])] : UNKNOWN
        when :method_add_arg then invoke(node[1], arguments(node[2]))
        when :method_add_block then fetch_with_block(node)
        when :call then invoke(node, [])
        else UNKNOWN
        end
      end

      def string(node)
        parts = node[1]
        return "" if parts == [:string_content]
        pieces = parts.drop(1)
        return UNKNOWN unless pieces.all? { |p| p.first == :@tstring_content }
        pieces.map { |p| p[1] }.join
      end

      def variable(ident)
        case ident.first
        when :@ident then @vars.fetch(ident[1], UNKNOWN)
        when :@kw then {"true" => true, "false" => false, "nil" => nil}.fetch(ident[1], UNKNOWN)
        else UNKNOWN
        end
      end

      def binary(node)
        a = value(node[1])
        return value(node[3]) if %i[|| or].include?(node[2]) && (a.nil? || a == false)
        return a if %i[|| or].include?(node[2])
        b = value(node[3])
        return UNKNOWN if a.equal?(UNKNOWN) || b.equal?(UNKNOWN) || !(a.is_a?(Integer) && b.is_a?(Integer))
        case node[2]
        when :* then a * b
        when :+ then a + b
        when :- then a - b
        else UNKNOWN
        end
      end

      # receiver.method(args), Integer(x), ENV.fetch(...).
      def invoke(node, args)
        if node.first == :fcall
          return (node[1][1] == "Integer" && args.size == 1) ? integer(value(args.first)) : UNKNOWN
        end
        return UNKNOWN unless node.first == :call
        receiver = node[1]
        name = node[3].is_a?(Array) ? node[3][1] : nil
        return cores_or_unknown(receiver) if CORES.include?(name)
        return env_fetch(args, nil) if env_const?(receiver) && name == "fetch"
        inner = value(receiver)
        return UNKNOWN if inner.equal?(UNKNOWN)
        case name
        when "to_i" then integer(inner)
        else UNKNOWN
        end
      end

      def cores_or_unknown(receiver)
        (receiver.first == :var_ref && %w[Concurrent Etc].include?(receiver.dig(1, 1))) ? @cores : UNKNOWN
      end

      def fetch_with_block(node)
        call_node = node[1]
        block = node[2]
        return UNKNOWN unless call_node.first == :method_add_arg && call_node[1].first == :call
        receiver = call_node[1][1]
        return UNKNOWN unless env_const?(receiver) && call_node[1][3][1] == "fetch"
        body = block[2]
        body = body[1] if body.is_a?(Array) && body.first == :bodystmt
        env_fetch(arguments(call_node[2]), -> { value(Array(body).last) })
      end

      def env_fetch(args, block)
        name = value(args.first)
        return UNKNOWN unless name.is_a?(String)
        return @env[name] if @env.key?(name)
        return value(args[1]) if args.size > 1
        block ? block.call : UNKNOWN
      end

      def integer(v)
        Integer(v)
      rescue ArgumentError, TypeError
        UNKNOWN
      end

      def env_const?(node) = node.is_a?(Array) && node.first.to_s.end_with?("var_ref", "top_const_ref") && node.dig(1, 1) == "ENV"

      def key(args)
        k = value(arguments(args).first)
        k.is_a?(String) ? k : nil
      end
    end
  end
end
