# frozen_string_literal: true

require "optparse"
require_relative "core"
require_relative "version"

module Arena
  # Dispatches `arena SUBCOMMAND`; each subcommand is an object with one `call`
  # that returns the exit status (EXIT_STATUS). Every failure Arena can
  # explain becomes one line on stderr, never a stack trace.
  class CLI
    COMMANDS = {
      "run" => "Commands::Run", "servers" => "Commands::Servers", "check" => "Commands::Check",
      "presets" => "Commands::Presets", "report" => "Commands::Report", "compare" => "Commands::Compare",
      "init" => "Commands::Init", "tune" => "Commands::Tune",
      "traffic" => "Commands::Traffic", "agent" => "Commands::Agent"
    }.freeze

    # One meaning per exit status, for scripts and CI (said by --help too).
    EXIT_STATUS = <<~TEXT.chomp
      exit status:
        0    measured (a server that failed beside others is a finding, not a failure)
        1    a threshold or gate failed (arena compare --fail-on, arena check)
        2    bad input, or nothing could be measured
        130  interrupted: what was measured is kept (results.json, the reports)
        70   a bug in Arena (ARENA_DEBUG=1 shows where)
    TEXT

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

      #{EXIT_STATUS}
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
    rescue UsageError, OptionParser::ParseError, Error => e
      # Bad input, or an Arena error that left nothing measured (a results
      # file that is not one, an engine that is not built): 1 is kept for a
      # threshold or gate that failed.
      @err.puts "arena: #{e.message}"
      2
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
