# frozen_string_literal: true

require_relative "base"
require_relative "../agent"

module Arena
  module Commands
    # `arena agent`: the remote side of --server-host and --loader-hosts,
    # started by Arena over SSH (see Agent). Not for interactive use: it
    # speaks JSON lines on stdin/stdout.
    class Agent < Base
      def call
        raise UsageError, "arena agent takes no arguments (Arena starts it over SSH)" unless @argv.empty?
        output = $stdout.dup
        # Only the protocol goes to stdout; anything else printed goes to stderr.
        $stdout.reopen($stderr)
        output.sync = true
        stop = ->(_) { $stdin.close unless $stdin.closed? }
        %w[TERM HUP].each { |sig| trap(sig) { Thread.new { stop.call(sig) } } }
        Arena::Agent.new(input: $stdin, output: output, log: @err).call
      end
    end
  end
end
