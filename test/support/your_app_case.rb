# frozen_string_literal: true

require_relative "arena_case"
require "arena"
require "digest"
require "timeout"

module Arena
  # A user's own app on every server: the fixture apps under
  # test/fixtures/apps (installed by script/setup test), each with a bundle
  # that names one server (or none), run through Arena's overlay bundle.
  # Loads are 0.5 s: the tests judge errors, requests and words, not rates,
  # and a Rails app answers hundreds of requests in that (1 s loads added
  # about 8 s to a run of a dozen servers and judged nothing more). Three
  # files use it (your_app_*_test.rb), one per fixture, so the integration
  # lane runs them side by side instead of one after the other in one long
  # file.
  class YourAppCase < ArenaCase
    FIXTURES = File.join(ROOT, "test/fixtures/apps")
    FORWARDED = "X-Forwarded-Proto: https"

    # One overlay cache per file: built by the first test that needs it,
    # reused by the rest (a cache test uses a fresh one of its own).
    def self.cache = @cache ||= Arena::TestHelp.tmpdir("arena-overlay-cache")

    def setup
      super
      %w[sinatra rails rack2].each do |name|
        gemfile = File.join(FIXTURES, name, "Gemfile")
        _, _, status = Open3.capture3({"BUNDLE_GEMFILE" => gemfile}, "bundle", "check")
        skip "fixture #{name} is not installed (script/setup test)" unless status.success?
      end
    end

    private

    # Every server that can run a user's app here. Puma on JRuby is left out:
    # it runs outside the app's bundle (JRuby's own gems), so an app that
    # needs gems of its own does not boot there.
    def servers(except: [])
      Arena::Servers.all.reject { |k| (["puma-jruby"] + except).include?(k.key) }
        .select { |k| !k.bundle_gems.empty? || k.install(Arena::Bundle::AppSource.builtin).found }
        .map(&:key)
    end

    def run_app(*args, cache: self.class.cache, chdir: ROOT, timeout: 300, env: {})
      @asked = {args: args, cache: cache, chdir: chdir, timeout: timeout, env: env}
      out = File.join(@tmp, "run-#{name}-#{rand(1 << 30)}")
      args += ["--out", out] if args.first == "run"
      # One round, as ArenaCase#arena: these tests are about the apps, not the rounds.
      args += ["--rounds", "1"] if args.first == "run" && (args & %w[--rounds --repeat --precision]).empty?
      # And -d as given, after -w alone: no warm-up to a steady state (up to
      # 2 s a server at -d 1) and no round lengthened to hold 2,000 requests
      # (up to 5 s where an app is slow, as Rails is), for a dozen servers a
      # run. These tests judge no figure: they assert errors, requests and words.
      args += ["--warmup-max", "0"] if args.first == "run" && !args.include?("--warmup-max")
      args += ["--round-requests", "0"] if args.first == "run" && !args.include?("--round-requests")
      stdout, stderr, status = Timeout.timeout(timeout) do
        Open3.capture3({"XDG_CACHE_HOME" => cache}.merge(env), EXE, *args, chdir: chdir)
      end
      Outcome.new(status: status, stdout: stdout, stderr: stderr, dir: out)
    end

    def fingerprint(app) = %w[Gemfile Gemfile.lock].to_h { |f| [f, Digest::SHA256.file(File.join(app, f)).hexdigest] }

    # Every server measured, without errors, and answering. A server that
    # completed nothing in its short load (Passenger has, in 0.5 s, while a test file
    # beside this one held the other core) is run again alone, as the last
    # run_app was asked but for 2 s after 1 s of warm-up, and must answer
    # then: these tests are about the app running, not about how soon.
    def assert_measured_without_errors(outcome, keys)
      asked = @asked
      by_server = outcome.measurements.group_by { |m| m["server"].split(":").first }
      keys.each do |key|
        ms = by_server[key]
        refute_nil ms, "#{key} was not measured\n#{outcome.describe}"
        ms.each { |m| assert_equal 0, arena_errors(m), "#{key}: #{m.dig("load", "errors")}" }
        next if ms.all? { |m| m.dig("load", "requests", "completed").to_i.positive? }
        again = run_app(*longer(asked[:args], key), **asked.except(:args))
        assert again.status.success?, again.describe
        warn "#{name}: #{key} completed no request in its load; alone for 2 s: " \
          "#{again.measurements.sum { |m| m.dig("load", "requests", "completed").to_i }} requests"
        refute_empty again.measurements, "#{key} was not measured again\n#{again.describe}"
        again.measurements.each do |m|
          assert_equal 0, arena_errors(m), "#{key} again: #{m.dig("load", "errors")}"
          assert_operator m.dig("load", "requests", "completed"), :>, 0, "#{key} completed no request, in its load nor alone in 2 s"
        end
      end
    end

    # The same run for one server, 2 s long after 1 s of warm-up.
    def longer(args, key)
      set = {"--servers" => key, "-d" => "2", "-w" => "1"}
      args.map.with_index { |arg, i| (i.positive? && set.key?(args[i - 1])) ? set[args[i - 1]] : arg }
    end
  end
end
