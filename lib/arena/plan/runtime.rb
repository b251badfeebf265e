# frozen_string_literal: true

require_relative "../core"
require_relative "plan"

module Arena
  class Plan
    # How the Ruby under a server runs, beside the server's own settings: YJIT,
    # the allocator (jemalloc through LD_PRELOAD) and glibc's arena count. Each
    # reaches the server only through its environment, so every server gets it
    # the same way, and each is part of the server config's label:
    #   puma:workers=2,threads=5,preload=false+yjit+malloc=jemalloc
    # The label's tokens are the flag's tokens, so a label read back from a
    # results file is also a valid `--servers` spec.
    #
    #   --runtime yjit                  RUBY_YJIT_ENABLE=1 (Ruby 3.1 reads it as --yjit)
    #   --runtime malloc=jemalloc       LD_PRELOAD=libjemalloc.so.2 (Debian: libjemalloc2)
    #   --runtime malloc=glibc          the default allocator, said explicitly
    #   --runtime malloc_arena_max=N    MALLOC_ARENA_MAX=N (glibc; the classic 2 for threaded Ruby)
    class Runtime
      JEMALLOC_GLOBS = %w[/usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 /usr/local/lib/libjemalloc.so.2].freeze
      MALLOCS = %w[glibc jemalloc].freeze
      KNOWN = "yjit, malloc=jemalloc|glibc, malloc_arena_max=N"

      attr_reader :yjit, :malloc, :arena_max

      # "yjit,malloc=jemalloc" or a list of such tokens -> Runtime; a UsageError
      # in one line for anything else.
      def self.parse(items)
        tokens = Array(items).flat_map { |item| item.to_s.split(/[,+\s]+/) }.reject(&:empty?)
        tokens.reduce(NONE) { |runtime, token| runtime.merge(token(token)) }
      end

      def self.token(text)
        name, value = text.split("=", 2)
        case name
        when "yjit"
          raise UsageError, "--runtime yjit takes no value" if value
          new(yjit: true)
        when "malloc"
          raise UsageError, "--runtime malloc must be #{MALLOCS.join(" or ")}, not #{value.inspect}" unless MALLOCS.include?(value)
          new(malloc: value)
        when "malloc_arena_max"
          n = Integer(value.to_s, exception: false)
          raise UsageError, "--runtime malloc_arena_max must be a whole number from 1 to 64, not #{value.inspect}" unless n&.between?(1, 64)
          new(arena_max: n)
        else
          raise UsageError, "unknown runtime #{text.inspect} (known: #{KNOWN})"
        end
      end

      # Where Debian (and most distributions) put jemalloc's shared library.
      def self.jemalloc_path = JEMALLOC_GLOBS.flat_map { |g| Dir.glob(g) }.first

      def initialize(yjit: false, malloc: nil, arena_max: nil)
        @yjit = yjit
        @malloc = malloc
        @arena_max = arena_max
        freeze
      end

      # Later tokens win over earlier ones of the same name.
      def merge(other)
        self.class.new(yjit: yjit || other.yjit, malloc: other.malloc || malloc, arena_max: other.arena_max || arena_max)
      end

      def empty? = tokens.empty?

      def tokens
        [("yjit" if yjit), ("malloc=#{malloc}" if malloc), ("malloc_arena_max=#{arena_max}" if arena_max)].compact
      end

      # "+yjit+malloc=jemalloc", appended to the server's label; "" when none.
      def suffix = tokens.map { |t| "+#{t}" }.join

      # Checked when the plan is built, for the server it applies to: nothing
      # may fail later, after servers have started.
      def check!(adapter)
        if yjit && adapter.class.ruby_engine != "mri"
          raise UsageError, "#{adapter.key}: --runtime yjit needs MRI (CRuby), not #{adapter.key}'s Ruby"
        end
        if yjit && !defined?(RubyVM::YJIT)
          raise UsageError, "--runtime yjit: this Ruby (#{RUBY_VERSION}) was built without YJIT"
        end
        if malloc == "jemalloc" && !self.class.jemalloc_path
          raise UsageError, "--runtime malloc=jemalloc: libjemalloc.so.2 not found (apt-get install libjemalloc2)"
        end
        self
      end

      # The server's environment for these settings; a nil unsets a variable,
      # so a setting Arena's own environment happens to have does not leak in.
      def env
        {
          "RUBY_YJIT_ENABLE" => yjit ? "1" : nil,
          "LD_PRELOAD" => (malloc == "jemalloc") ? self.class.jemalloc_path : nil,
          "MALLOC_ARENA_MAX" => arena_max&.to_s
        }
      end

      def to_a = tokens

      def ==(other) = other.is_a?(Plan::Runtime) && tokens == other.tokens

      alias_method :eql?, :==

      def hash = tokens.hash

      def to_s = empty? ? "default" : tokens.join("+")

      NONE = new
    end
  end
end
