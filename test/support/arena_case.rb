# frozen_string_literal: true

require "json"
require "open3"
require "timeout"
require "tmpdir"
require "fileutils"
require_relative "finding_text"
require "arena/results"

module Arena
  # Integration tests run the real `arena` executable, as a user would, with
  # short loads, and then look at its exit status, its stderr and its results
  # file, and at /proc for anything it left behind.
  class ArenaCase < Minitest::Test
    ROOT = File.expand_path("../..", __dir__)
    EXE = File.join(ROOT, "exe/arena")

    Outcome = Struct.new(:status, :stdout, :stderr, :dir, keyword_init: true) do
      def results = JSON.parse(File.read(File.join(dir, "results.json")))

      def measurements = results.fetch("measurements")

      # The run's report.md: every finding's whole sentence, under its terminal line.
      def report_md = File.read(File.join(dir, "report.md"))

      def describe = "exit #{status.exitstatus}\nstdout:\n#{stdout}\nstderr:\n#{stderr}"
    end

    def setup
      skip "engine binary missing: make -C ext/arena_load" unless File.executable?(File.join(ROOT, "ext/arena_load/arena-load"))
      @tmp = Dir.mktmpdir("arena-test")
    end

    def teardown
      return unless @tmp
      assert_empty lasting_leftovers(@tmp), "processes left behind"
      FileUtils.rm_rf(@tmp)
    end

    def arena(*args, timeout: 120)
      out = File.join(@tmp, "run-#{name}-#{rand(1 << 30)}")
      args += ["--out", out] if %w[run].include?(args.first)
      # One round unless the test asks for more: the tests are about behaviour,
      # and three rounds of every load would triple the suite's time.
      args += ["--rounds", "1"] if args.first == "run" && (args & %w[--rounds --repeat --precision --config]).empty?
      stdout, stderr, status = Timeout.timeout(timeout) { Open3.capture3(EXE, *args, chdir: ROOT) }
      Outcome.new(status: status, stdout: stdout, stderr: stderr, dir: out).tap { |outcome| assert_findings_measurable(outcome) }
    end

    # No finding of any run states a rate from a time it could not measure
    # (issue 45: "at most 285714.3 req/s at 0.0 ms a request"): the
    # terminal's lines and report.md's, whole.
    def assert_findings_measurable(outcome)
      report = File.join(outcome.dir.to_s, "report.md")
      said = outcome.stdout.lines + outcome.stderr.lines + (File.file?(report) ? File.read(report).lines : [])
      assert_empty FindingText.rates_from_nothing(said.map(&:chomp)), "a finding states a rate from a time it could not measure"
    end

    # `arena run ARGS`, which must succeed.
    def run_ok(*args)
      outcome = arena("run", *args)
      assert outcome.status.success?, outcome.describe
      outcome
    end

    # The run's first measurement of `scenario` (and `variant`), or a failure naming what it has.
    def find(outcome, scenario, variant = nil)
      outcome.measurements.find { |m| m["scenario"] == scenario && (variant.nil? || m["variant"] == variant) } ||
        flunk("no #{scenario} #{variant} in #{outcome.measurements.map { |m| [m["scenario"], m["variant"]] }}")
    end

    # Arena's errors in a measurement (a record of results.json): the
    # engine's, less those a known, named server fault explains (Puma's
    # truncated response: lib/arena/verdicts/truncated_response.rb, flagged
    # "server-fault"). A test that is not about that fault asserts these are
    # 0; the fault's own test asserts it is named.
    def arena_errors(m)
      record = Arena::Results::Measurement.from_h(m)
      return 0 unless record.load
      return record.load.errors unless record.flags.include?("server-fault")
      record.load.errors - record.load.error_kinds["parse"].to_i
    end

    # The leftovers still there after a short grace: a process the run killed
    # may still be tearing down when the run returns (a Falcon child of a
    # crashed boot was seen once with its memory already released, an empty
    # command line, not yet gone). One that lasts 2 s was left behind.
    def lasting_leftovers(marker, grace: 2.0)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + grace
      loop do
        left = leftovers(marker)
        return left if left.empty? || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
        sleep 0.05
      end
    end

    # Any live process whose command line or working directory mentions `marker`.
    def leftovers(marker)
      Dir.children("/proc").grep(/\A\d+\z/).filter_map do |pid|
        cmd = File.read("/proc/#{pid}/cmdline").tr("\0", " ")
        cwd = begin
          File.readlink("/proc/#{pid}/cwd")
        rescue SystemCallError
          ""
        end
        state = File.read("/proc/#{pid}/stat")[/\) (\w)/, 1]
        "#{pid} #{cmd}" if state != "Z" && (cmd.include?(marker) || cwd.start_with?(marker))
      rescue SystemCallError
        nil
      end
    end

    # A user's app: a config.ru in a directory with its own locked bundle,
    # resolved from the gems already installed (no network).
    def user_app(config_ru, gems: %w[puma rack])
      dir = File.join(@tmp, "app")
      FileUtils.mkdir_p(dir)
      File.write(File.join(dir, "config.ru"), config_ru)
      File.write(File.join(dir, "Gemfile"), "source \"https://rubygems.org\"\n" + gems.map { |g| "gem #{g.inspect}\n" }.join)
      _, err, status = Open3.capture3({"BUNDLE_GEMFILE" => File.join(dir, "Gemfile")}, "bundle", "lock", "--local", chdir: dir)
      raise "bundle lock failed: #{err}" unless status.success?
      File.join(dir, "config.ru")
    end
  end
end
