# frozen_string_literal: true

require "json"
require "tmpdir"
require_relative "misbehaving_servers"

module Arena
  # Base class of the tests that drive the native engine from outside: they
  # only use its flags, exit status, stderr and JSON document.
  class EngineCase < Minitest::Test
    # One finished engine process.
    EngineRun = Struct.new(:status, :stdout, :stderr, :elapsed, :args, keyword_init: true) do
      def exit_code
        status.exitstatus
      end

      def json
        @json ||= JSON.parse(stdout)
      rescue JSON::ParserError => e
        raise Minitest::Assertion, "engine stdout is not one JSON document (#{e.message}):\n#{describe}"
      end

      def errors
        json.fetch("errors")
      end

      def latency
        json.fetch("latency_us")
      end

      def sent
        json.fetch("requests").fetch("sent")
      end

      def completed
        json.fetch("requests").fetch("completed")
      end

      def stderr_lines
        stderr.lines.map(&:chomp).reject(&:empty?)
      end

      def describe
        "arena-load #{args.join(" ")}\n  exit: #{status.inspect}, #{format("%.2f", elapsed)} s\n" \
          "  stdout: #{stdout[0, 3000]}\n  stderr: #{stderr[0, 2000]}"
      end
    end

    ERROR_KINDS = %w[connect_refused connect_timeout reset closed_before_response timeout parse
      unexpected_status body_mismatch handshake certificate alpn_mismatch goaway rst_stream flow_control].freeze

    def setup
      engine = TestHelp.engine_path
      skip "engine binary missing at #{engine}: build it with `make -C ext/arena_load`" unless File.executable?(engine)
    end

    # Runs the engine to completion with a hard deadline: a hung engine fails
    # the test instead of hanging the suite. `prefix` wraps the command (for
    # unshare); `interrupt_after` sends `signal` that many seconds after start.
    def run_engine(*args, deadline: 10, prefix: [], interrupt_after: nil, signal: "INT")
      args = args.map(&:to_s)
      out_r, out_w = IO.pipe
      err_r, err_w = IO.pipe
      started = monotonic
      pid = Process.spawn(*prefix, TestHelp.engine_path, *args,
        in: File::NULL, out: out_w, err: err_w, unsetenv_others: false)
      out_w.close
      err_w.close
      readers = [out_r, err_r].map { |io| Thread.new { io.read } }
      status = wait_for(pid, started + deadline, interrupt_at: interrupt_after && started + interrupt_after, signal: signal)
      run = EngineRun.new(status: status, stdout: readers[0].value, stderr: readers[1].value,
        elapsed: monotonic - started, args: args)
      flunk("engine did not finish within #{deadline} s and was killed:\n#{run.describe}") unless status
      run
    ensure
      [out_r, err_r].each { |io| io&.close unless io&.closed? }
    end

    # A file of this content (a requests or body file) for the block's length.
    def with_file(name, content)
      Dir.mktmpdir("arena-engine") do |dir|
        path = File.join(dir, name)
        File.write(path, content)
        yield path
      end
    end

    # A run that must succeed and print a document whose counters add up.
    def run_ok(*args, **options)
      run = run_engine(*args, "--json", **options)
      assert_equal 0, run.exit_code, run.describe
      assert_consistent(run)
      run
    end

    def assert_consistent(run)
      doc = run.json
      %w[schema target model duration_s requests throughput_rps bytes_received status errors latency_us
        connections timeline].each { |key| assert doc.key?(key), "JSON lacks #{key}:\n#{run.describe}" }
      errors = run.errors
      ERROR_KINDS.each { |kind| assert_kind_of Integer, errors[kind], "errors.#{kind} missing:\n#{run.describe}" }
      if errors.key?("total")
        assert_equal ERROR_KINDS.sum { |kind| errors[kind] }, errors["total"], "errors.total is not the sum of the kinds"
      end
      assert_operator run.completed, :<=, run.sent, "completed more than sent:\n#{run.describe}"
      assert_kind_of Array, doc["timeline"]
    end

    def assert_only_errors(run, expected)
      actual = ERROR_KINDS.to_h { |kind| [kind, run.errors[kind]] }.reject { |_, count| count.zero? }
      assert_equal expected, actual, "error counts differ:\n#{run.describe}"
    end

    def assert_no_errors(run)
      assert_only_errors(run, {})
    end

    def assert_one_line_error(run, status)
      assert_equal status, run.exit_code, "wrong exit status:\n#{run.describe}"
      assert_equal 1, run.stderr_lines.size, "expected exactly one line on stderr:\n#{run.describe}"
      assert_operator run.elapsed, :<, 3, "took too long to refuse:\n#{run.describe}"
    end

    # A loopback port on which nothing listens (bound, then released).
    def closed_port
      server = TCPServer.new("127.0.0.1", 0)
      server.addr[1]
    ensure
      server&.close
    end

    def monotonic
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    private

    def wait_for(pid, deadline, interrupt_at:, signal:)
      loop do
        _, status = Process.wait2(pid, Process::WNOHANG)
        return status if status
        now = monotonic
        if interrupt_at && now >= interrupt_at
          Process.kill(signal, pid)
          interrupt_at = nil
        end
        if now >= deadline
          Process.kill("KILL", pid)
          Process.wait(pid)
          return nil
        end
        sleep 0.01
      end
    end
  end
end
