# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# Where a server's newest release needs another version of a gem the app
# locks (Itsi's prism ~> 1.4 beside an app's prism 2.1.0), its other
# releases that fit are tried before it is refused, and the refusal names
# the newest that would fit.
class OtherReleaseTest < Minitest::Test
  INDEX = <<~TEXT
    ---
    0.1.0 prism:>= 1.0,rack:>= 1.6|checksum:a,ruby:>= 2.7
    0.2.0 prism:~> 1.4|checksum:b,ruby:>= 3.0
    0.2.1-java prism:>= 1.0&< 3|checksum:c,ruby:>= 3.0
    0.2.2 prism:>= 1.0|checksum:d,ruby:>= 9.0
    0.2.3.pre prism:>= 1.0|checksum:e
    0.3.0 prism:~> 1.4|checksum:f,ruby:>= 3.0
  TEXT

  APP_LOCK = "GEM\n  remote: https://rubygems.org/\n  specs:\n    prism (2.1.0)\n    rack (3.0.0)\n\n" \
    "PLATFORMS\n  ruby\n\nDEPENDENCIES\n  prism\n  rack\n"

  # Bundler as the overlay sees it: nothing installed; from the registry,
  # itsi-server locks only at the versions in `locks` (pinned `= V`) and
  # otherwise fails as Bundler does on a conflict.
  class ScriptedBundler
    attr_reader :pins

    def initialize(locks:)
      @locks = locks
      @pins = []
    end

    def call(gemfile, argv, log_path:)
      return outcome(true) if argv.first == "install"
      return outcome(false, "Could not find gem 'itsi-server' in locally installed gems.") if argv.include?("--local")
      pin = File.read(gemfile)[/gem "itsi-server", "= ([^"]+)"/, 1]
      @pins << pin
      unless @locks.include?(pin)
        return outcome(false, "Bundler could not find compatible versions for gem \"prism\":\n  In snapshot (Gemfile.lock):\n    prism (= 2.1.0)\n\n" \
          "  In Gemfile:\n    itsi-server was resolved to 0.3.0, which depends on\n      prism (~> 1.4)\n")
      end
      File.write("#{gemfile}.lock", File.read("#{gemfile}.lock").sub("  specs:\n", "  specs:\n    itsi-server (#{pin})\n      prism (>= 1.0)\n"))
      outcome(true)
    end

    def outcome(ok, output = "") = Arena::Bundle::BundlerCommand::Outcome.new(ok: ok, output: output)
  end

  def test_the_releases_that_fit_the_apps_lock_newest_first
    releases = Arena::Bundle::Releases.parse(INDEX)
    fits = ->(platforms) { Arena::Bundle::Releases.fitting(releases, app_versions: {"prism" => "2.1.0", "rack" => "3.0.0"}, ruby: "3.1.2", platforms: platforms) }
    assert_equal %w[0.1.0], fits.call(%w[ruby x86_64-solaris]), "not 0.3.0/0.2.0 (prism ~> 1.4), 0.2.2 (Ruby >= 9), 0.2.3.pre (a prerelease), 0.2.1 (java)"
    assert_equal %w[0.2.1], fits.call(%w[ruby java]), "on a platform the gem ships builds for, only its builds"
  end

  def test_an_older_release_that_fits_is_added
    result, bundler = overlay(locks: %w[0.1.0])
    entry = result.entry("itsi")
    assert_equal [:added, "0.1.0"], [entry.state, entry.version], entry.describe
    assert_equal [nil, "0.1.0"], bundler.pins.first(2), "the newest first, then the one release that fits"
  end

  def test_the_refusal_names_the_newest_that_would_fit
    result, bundler = overlay(locks: [])
    entry = result.entry("itsi")
    assert_equal :cannot, entry.state
    assert_match(/needs prism ~> 1\.4, the app locks prism 2\.1\.0; itsi-server 0\.1\.0 would fit/, entry.why)
    assert_equal 2, bundler.pins.size, "no more than the releases that fit"
  end

  def test_the_refusal_says_when_no_release_fits
    result, = overlay(locks: [], index: "---\n0.3.0 prism:~> 1.4|checksum:f\n")
    assert_match(/; no released itsi-server fits the app's lock\z/, result.entry("itsi").why)
  end

  # Itsi ships x86_64-linux builds; its 0.2.7 fits prism 2.1.0 but is
  # source only (Rust): named, not compiled.
  def test_a_release_that_would_be_compiled_is_named_not_tried
    local = Gem::Platform.local.to_s
    index = "---\n0.2.7 json:~> 2|checksum:a\n0.2.27 prism:~> 1.4|checksum:b\n0.2.27-#{local} prism:~> 1.4|checksum:c\n"
    releases = Arena::Bundle::Releases.parse(index)
    assert_equal [], Arena::Bundle::Releases.fitting(releases, app_versions: {"prism" => "2.1.0"})
    assert_equal "0.2.7", Arena::Bundle::Releases.compiled_only(releases, app_versions: {"prism" => "2.1.0"})
    result, bundler = overlay(locks: %w[0.2.7], index: index)
    assert_match(/; itsi-server 0\.2\.7 would fit, but has no #{local} build \(it would be compiled\)\z/, result.entry("itsi").why)
    assert_equal [nil], bundler.pins, "not tried"
  end

  private

  def overlay(locks:, index: INDEX)
    Dir.mktmpdir do |tmp|
      File.write(File.join(tmp, "Gemfile"), "gem \"prism\"\ngem \"rack\"\n")
      File.write(File.join(tmp, "Gemfile.lock"), APP_LOCK)
      app = Struct.new(:app_gemfile, :app_lockfile).new(File.join(tmp, "Gemfile"), File.join(tmp, "Gemfile.lock"))
      bundler = ScriptedBundler.new(locks: locks)
      result = Arena::Bundle::Overlay.new(app: app, cache_root: File.join(tmp, "cache"), servers: [Arena::Servers.fetch("itsi")],
        bundler: bundler, floors: {}, settings: Arena::Bundle::Settings.none, app_gems: nil, releases: ->(_) { index }).call
      [result, bundler]
    end
  end
end
