# frozen_string_literal: true

require_relative "../load/engine"
require_relative "../load/settings"
require_relative "../plan/machine"

module Arena
  class Agent
    # A loader's engine run, from typed fields: the agent builds the argv
    # itself (Load::Engine#argv), so no caller's word becomes an engine flag.
    # No file path at all (the caller's path means nothing here, and a file
    # here is not the caller's to send): a body and a mix come as content,
    # written into the agent's own directory. The target is
    # this host's loopback or the one address named in hello, and
    # --allow-remote is added here for that address only.
    class LoadRequest
      TARGET = %r{\Ahttp://(?<host>\[[0-9a-fA-F:.]+\]|[0-9.]+|localhost):(?<port>\d{1,5})(?<path>/[\x21-\x7e]*)\z}
      HEADER = /\A[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}: ?[\x20-\x7e\t]{0,1024}\z/
      METHOD = /\A[A-Z]{1,16}\z/
      PROFILE = /\A[0-9.e+-]+:[0-9.e+-]+:[0-9.e+-]+(?:,[0-9.e+-]+:[0-9.e+-]+:[0-9.e+-]+)*\z/
      LOOPBACK = %w[127.0.0.1 ::1 localhost].freeze

      def initialize(fields, remote:)
        @f = fields
        @remote = remote
      end

      def target
        @target ||= begin
          t = @f.string("target", max: 2048)
          m = TARGET.match(t) or @f.bad!("target", "http://ADDRESS:PORT/PATH")
          host = m[:host].delete_prefix("[").delete_suffix("]")
          @f.bad!("target", "loopback or #{@remote || "(no address named in hello)"}") unless LOOPBACK.include?(host) || host == @remote
          @f.bad!("target", "a port in 1..65535") unless (1..65_535).cover?(m[:port].to_i)
          t
        end
      end

      def remote? = !LOOPBACK.include?(target[%r{\Ahttp://\[?([^\]/]+?)\]?:\d+/}, 1])

      # Load::Settings with every engine row and run field checked by type and
      # by the table's own range.
      def settings
        s = {}
        Load::TABLE.select(&:engine).each do |row|
          next unless @f.given?(row.name.to_s)
          s[row.name] = (row.type == Integer) ? @f.integer(row.name.to_s, row.check) : @f.number(row.name.to_s, row.check || (0..Float::INFINITY))
        end
        s[:requests] = @f.integer("requests", 1..100_000_000, default: nil)
        s[:reps] = @f.integer("reps", 1..10_000_000, default: nil)
        s[:rate] = @f.number("rate", 0.001..10_000_000, default: nil)
        # The engine's stages, R0:R1:SEC,... (the engine checks their values).
        s[:profile] = @f.string("profile", pattern: PROFILE, default: nil, max: 2048)
        s[:timeline_ms] = @f.integer("timeline_ms", 1..60_000, default: nil)
        s[:expect_status] = @f.integer("expect_status", 100..599, default: nil)
        s[:expect_body] = @f.string("expect_body", default: nil, max: 1024)
        s[:method] = @f.string("method", pattern: METHOD, default: nil)
        s[:headers] = @f.words("headers", HEADER, default: [])
        keep_alive = @f.boolean("keep_alive", default: true)
        s[:mix_file] = mix_file if @f.given?("mix")
        s[:body_file] = body_file if @f.given?("body")
        %w[body_file mix_file args files].each { |k| @f.bad!(k, "nothing: a loader reads no file the caller names") if @f.given?(k) }
        Load::Settings.build(**s.compact, keep_alive: keep_alive)
      end

      def argv(dir)
        @dir = dir
        engine = Load::Engine.new(dir: dir, machine: Plan::Machine.new(cores: 1, shared: true).freeze)
        args = engine.argv(target, settings)
        args.insert(-2, "--wait-go") # --histograms: Load::Engine#argv always asks for them
        args.insert(-2, "--allow-remote") if remote?
        args
      end

      private

      BODY_LIMIT = 64 * 1024 * 1024
      MIX_LIMIT = 1024 * 1024

      # The request body as base64 content, written into the agent's own dir.
      def body_file
        text = @f.raw("body")
        @f.bad!("body", "base64 text of at most #{BODY_LIMIT} bytes") unless text.is_a?(String) && text.bytesize <= BODY_LIMIT * 4 / 3 + 4
        write("body", text.unpack1("m0"))
      rescue ArgumentError
        @f.bad!("body", "base64 text")
      end

      # The mix as text (the engine's mix grammar, which names no file).
      def mix_file
        text = @f.raw("mix")
        unless text.is_a?(String) && text.bytesize <= MIX_LIMIT && text.valid_encoding? && !text.match?(/[\x00-\x08\x0b-\x1f\x7f]/)
          @f.bad!("mix", "the mix file's text (at most #{MIX_LIMIT} bytes, no control characters)")
        end
        write("mix", text)
      end

      def write(kind, content)
        path = File.join(@dir, "#{kind}-#{Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)}")
        File.binwrite(path, content)
        path
      end
    end
  end
end
