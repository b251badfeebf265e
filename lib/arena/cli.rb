# frozen_string_literal: true

require "optparse"

module Arena
  # Dispatches `arena SUBCOMMAND`; each subcommand is an object with one `call`
  # that returns the exit status. Every failure Arena can explain becomes one
  # line on stderr, never a stack trace.
  class CLI
    COMMANDS = {
      "run" => "Commands::Run", "servers" => "Commands::Servers", "check" => "Commands::Check",
      "presets" => "Commands::Presets", "report" => "Commands::Report", "compare" => "Commands::Compare",
      "init" => "Commands::Init", "tune" => "Commands::Tune",
      "traffic" => "Commands::Traffic", "agent" => "Commands::Agent"
    }.freeze

    USAGE = <<~TEXT
      usage: arena COMMAND [options]
        run       start each server, verify it, load it, report (arena run --help)
        servers   list every adapter: installed or not, version, source
        check     start each server and verify it, without load
        report    render a run again: terminal table, DIR/report.md, DIR/report.html (arena report DIR)
        tune      search each server's settings for the config that sustains the most (arena tune --help)
        compare   what changed between two runs, with noise marked (arena compare A B)
        presets   the published comparisons `arena run --preset NAME` re-runs
        traffic   arena traffic import LOG: a requests file (--requests) from a production log
        init      write a commented arena.yml for the app here (`arena run` here then uses it)
        agent     the remote side of --server-host/--loader-hosts (started by Arena over SSH)
    TEXT

    def initialize(argv, out: $stdout, err: $stderr)
      @argv = argv.dup
      @out = out
      @err = err
    end

    def run
      name = @argv.shift
      return usage(0) if name.nil? || %w[-h --help help].include?(name)
      if %w[-v --version].include?(name)
        @out.puts "arena #{VERSION}"
        return 0
      end
      klass = COMMANDS[name] or raise UsageError, "unknown command #{name.inspect} (#{COMMANDS.keys.join(", ")})"
      require_relative "commands/#{name}"
      Arena.const_get(klass).new(@argv, out: @out, err: @err).call
    rescue UsageError, OptionParser::ParseError => e
      @err.puts "arena: #{e.message}"
      2
    rescue Error => e
      @err.puts "arena: #{e.message}"
      1
    rescue Interrupt
      @err.puts "arena: interrupted"
      130
    rescue => e
      # A bug in Arena: still one line, with where it happened; ARENA_DEBUG=1 shows the trace.
      raise if ENV["ARENA_DEBUG"] == "1"
      @err.puts "arena: internal error: #{e.class}: #{e.message} (at #{e.backtrace&.first}); rerun with ARENA_DEBUG=1 for the trace"
      70
    end

    private

    def usage(status)
      @out.print USAGE
      status
    end
  end
end
