# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "open3"
require "tmpdir"
require_relative "../../support/bundler_settings_app"

# The overlay under the app's own Bundler settings, with real `bundle`
# runs from this machine's installed gems: a tiny Rack app that locks a gem
# nobody installed in a group it leaves out, and Puma only in :test.
class OverlaySettingsTest < Minitest::Test
  include Arena::BundlerSettingsApp

  def setup
    @tmp = Dir.mktmpdir("arena-overlay-settings")
    @app = File.join(@tmp, "app")
    @cache = File.join(@tmp, "cache")
  end

  def teardown = FileUtils.rm_rf(@tmp)

  # `bundle config set --local without 'development test'`: the overlay
  # installed the groups the app left out ("Could not find notinstalled-1.0.0").
  def test_the_groups_the_app_leaves_out_are_not_installed
    make_app(without: "development:test")
    before = tree(@app)
    app, result = overlay(%w[thin])
    assert_equal :added, result.entry("thin").state, result.entry("thin").describe
    assert_match(/^BUNDLE_WITHOUT: "development:test"$/, File.read(File.join(result.dir, ".bundle", "config")))
    assert_equal "thin", run_in(app, 'require "thin"; print "thin"')
    assert_equal before, tree(@app), "the app's files are as they were"
  end

  # Puma locked by the app, in its :test group only: not in its bundle when
  # a server boots ("can't find executable puma").
  def test_a_server_only_in_an_excluded_group_is_added
    make_app(without: "development:test")
    app, result = overlay(%w[puma])
    assert_equal :added, result.entry("puma").state, result.entry("puma").describe
    assert_equal locked("puma"), result.entry("puma").version, "the app's locked version"
    assert_equal locked("puma"), run_in(app, 'require "puma/const"; print Puma::Const::PUMA_VERSION')
    refute_equal locked("puma"), run_in(Arena::Bundle::AppSource.user(@app), 'require "puma/const"; print Puma::Const::PUMA_VERSION'),
      "the app's own bundle does not load it"
  end

  # The first try fails (the app's development group is not installed and
  # not left out); the user leaves it out, and the next run sees that.
  def test_a_failed_overlay_is_built_again_once_the_apps_bundle_changes
    make_app(without: nil)
    _, first = overlay(%w[thin])
    assert_equal :cannot, first.entry("thin").state
    assert_match(/notinstalled/, first.entry("thin").why)
    bundle_config("BUNDLE_WITHOUT" => "development")
    _, second = overlay(%w[thin])
    refute second.reused, "not the failed overlay again"
    assert_equal :added, second.entry("thin").state, second.entry("thin").describe
  end

  # The same, fixed by installing the missing gem (under vendor/bundle),
  # settings unchanged: what is installed is part of the key.
  def test_a_failed_overlay_is_built_again_once_the_missing_gem_is_installed
    make_app(without: nil, path: true)
    _, first = overlay(%w[thin])
    assert_equal :cannot, first.entry("thin").state
    install_gem("notinstalled", "NotInstalled")
    _, second = overlay(%w[thin])
    refute second.reused, "not the failed overlay again"
    assert_equal :added, second.entry("thin").state, second.entry("thin").describe
  end

  # Gems under vendor/bundle (BUNDLE_PATH): the overlay finds them there
  # and writes nothing into the app's tree.
  def test_an_app_with_its_gems_in_vendor_bundle
    make_app(without: "development:test", path: true)
    before = tree(@app)
    app, result = overlay(%w[thin])
    assert_equal :added, result.entry("thin").state, result.entry("thin").describe
    assert_equal "1.0.0 thin", run_in(app, 'require "vendored_probe"; require "thin"; print VendoredProbe::VERSION, " thin"')
    assert_equal before, tree(@app), "nothing written under the app, vendor/bundle included"
  end

  private

  def overlay(servers)
    app = Arena::Bundle::AppSource.user(@app)
    result = Arena::Bundle::Overlay.new(app: app, cache_root: @cache, servers: servers.map { |k| Arena::Servers.fetch(k) }).call
    [app.with_overlay(result), result]
  end

  # Ruby in the app's bundle as a server runs in it; its output.
  def run_in(app, code)
    out, err, status = Open3.capture3(Arena::BundlerSettingsApp::CLEAN.merge(app.bundle_env), RbConfig.ruby, "-e", "require 'bundler/setup'; #{code}", chdir: app.dir)
    status.success? ? out : "failed: #{err.lines.grep(/Error|error/).first}"
  end
end
