# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# An overlay that must fetch one server keeps the versions the others
# resolved to from installed gems. Locked from the app's lock alone, Bundler
# took the registry's newest of every gem the app does not lock: beside a
# Rack 2 app WEBrick needed rackup 1.0.1 from the registry, and Falcon's
# openssl went from Ruby 3.1's own 3.0.1 to 3.3.3, a 40 s compile.
class OverlayFetchTest < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/apps", __dir__)

  # Bundler as far as the overlay sees it: `lock --local` fails on a gem not
  # installed; a lock keeps every gem its starting lock holds (Bundler's
  # conservative locking) and takes the rest at the installed version
  # (--local) or the registry's newest.
  class ScriptedBundler
    attr_reader :calls

    # conflict: a lock from the registry that starts from a lock holding
    # falcon fails (the fetched server needs what the installed ones locked).
    def initialize(installed:, conflict: false)
      @installed = installed
      @conflict = conflict
      @calls = []
    end

    def call(gemfile, argv, log_path:)
      lock = "#{gemfile}.lock"
      names = File.read(gemfile).scan(/^  gem "([^"]+)"/).flatten
      @calls << {argv: argv.join(" "), dir: File.basename(File.dirname(gemfile)), base: File.read(lock)} if argv.first == "lock"
      return outcome(true) if argv.first == "install"
      local = argv.include?("--local")
      missing = names - @installed
      return outcome(false, "Could not find gem '#{missing.first}' in locally installed gems.") if local && missing.any?
      return outcome(false, "Bundler could not find compatible versions for gem \"shared-dep\"") if @conflict && !local && File.read(lock).include?("falcon")
      File.write(lock, with(File.read(lock), names, shared: local ? "1.0.0" : "2.0.0"))
      outcome(true)
    end

    private

    def outcome(ok, output = "") = Arena::Bundle::BundlerCommand::Outcome.new(ok: ok, output: output)

    # The lock with each server gem (1.0.0, needing shared-dep) and shared-dep
    # added where the lock lacks them.
    def with(text, names, shared:)
      held = Bundler::LockfileParser.new(text).specs.map(&:name)
      specs = names.reject { |n| held.include?(n) }.map { |n| "    #{n} (1.0.0)\n      shared-dep (>= 1)\n" }
      specs << "    shared-dep (#{shared})\n" unless held.include?("shared-dep")
      deps = names.map { |n| "  #{n}\n" }
      text.sub("  specs:\n") { "  specs:\n#{specs.join}" }.sub("DEPENDENCIES\n") { "DEPENDENCIES\n#{deps.join}" }
    end
  end

  def test_a_fetched_server_keeps_the_installed_servers_gems
    Dir.mktmpdir do |cache|
      app = Arena::Bundle::AppSource.user(File.join(FIXTURES, "sinatra"))
      bundler = ScriptedBundler.new(installed: %w[falcon])
      result = Arena::Bundle::Overlay.new(app: app, cache_root: cache, bundler: bundler, floors: {},
        servers: %w[falcon thin].map { |k| Arena::Servers.fetch(k) }).call
      assert_equal %i[added added], %w[falcon thin].map { |k| result.entry(k).state }
      specs = Bundler::LockfileParser.new(File.read("#{result.gemfile}.lock")).specs.to_h { |s| [s.name, s.version.to_s] }
      assert_equal "1.0.0", specs["shared-dep"], "the installed shared-dep kept, not the registry's newest"
      assert_equal "1.0.0", specs["thin"]
      final = bundler.calls.reverse.find { |c| c[:argv] == "lock" }
      assert_includes final[:base], "    falcon (1.0.0)", "the fetching lock starts from the installed servers' lock"
      refute_includes File.read(app.app_lockfile), "falcon", "the app's own lock is left as it was"
    end
  end

  # Everything installed: one lock from installed gems, none from the registry.
  def test_nothing_to_fetch_locks_from_installed_gems_only
    Dir.mktmpdir do |cache|
      app = Arena::Bundle::AppSource.user(File.join(FIXTURES, "sinatra"))
      bundler = ScriptedBundler.new(installed: %w[falcon thin])
      result = Arena::Bundle::Overlay.new(app: app, cache_root: cache, bundler: bundler, floors: {},
        servers: %w[falcon thin].map { |k| Arena::Servers.fetch(k) }).call
      assert_equal %i[added added], %w[falcon thin].map { |k| result.entry(k).state }
      assert bundler.calls.all? { |c| c[:argv] == "lock --local" }, bundler.calls.map { |c| c[:argv] }.inspect
      refute(bundler.calls.any? { |c| c[:dir] == "installed" }, "no lock of the installed servers alone")
    end
  end

  # Where the installed servers' versions leave the fetched one no answer,
  # the lock is made again from the app's lock alone, as before.
  def test_a_conflict_with_the_installed_servers_locks_from_the_apps_lock
    Dir.mktmpdir do |cache|
      app = Arena::Bundle::AppSource.user(File.join(FIXTURES, "sinatra"))
      bundler = ScriptedBundler.new(installed: %w[falcon], conflict: true)
      result = Arena::Bundle::Overlay.new(app: app, cache_root: cache, bundler: bundler, floors: {},
        servers: %w[falcon thin].map { |k| Arena::Servers.fetch(k) }).call
      assert_equal %i[added added], %w[falcon thin].map { |k| result.entry(k).state }
      specs = Bundler::LockfileParser.new(File.read("#{result.gemfile}.lock")).specs.to_h { |s| [s.name, s.version.to_s] }
      assert_equal "2.0.0", specs["shared-dep"]
      last = bundler.calls.last
      assert_equal ["lock", File.read(app.app_lockfile)], [last[:argv], last[:base]]
    end
  end
end
