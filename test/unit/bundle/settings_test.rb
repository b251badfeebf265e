# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# The app's Bundler settings, read as Bundler reads them: the app's config,
# then the environment, then the user's; the path decided per level.
class BundleSettingsTest < Minitest::Test
  S = Arena::Bundle::Settings

  def read(local: {}, env: {}, global: {})
    Dir.mktmpdir do |tmp|
      app = File.join(tmp, "app")
      write(File.join(app, ".bundle", "config"), local)
      write(File.join(tmp, "home", ".bundle", "config"), global)
      [S.read(app, env: env, home: File.join(tmp, "home")), app]
    end
  end

  def write(file, hash)
    FileUtils.mkdir_p(File.dirname(file))
    File.write(file, "---\n" + hash.map { |k, v| "#{k}: #{v.inspect}\n" }.join)
  end

  def test_the_apps_config_comes_before_the_environment_and_the_environment_before_the_users
    s, = read(local: {"BUNDLE_WITHOUT" => "development:test"}, env: {"BUNDLE_WITHOUT" => "x", "BUNDLE_WITH" => "docs"},
      global: {"BUNDLE_WITH" => "y", "BUNDLE_ONLY" => "default web", "BUNDLE_FROZEN" => "true"})
    assert_equal [%w[development test], %w[docs], %w[default web], true], [s.without, s.with, s.only, s.frozen]
  end

  def test_a_relative_path_is_the_apps_and_deployment_means_vendor_bundle
    s, app = read(local: {"BUNDLE_PATH" => "vendor/bundle"})
    assert_equal File.join(app, "vendor/bundle"), s.path
    assert_equal File.join(app, "vendor/bundle", RUBY_ENGINE, RbConfig::CONFIG["ruby_version"]), s.gem_dir
    s, app = read(env: {"BUNDLE_DEPLOYMENT" => "true"})
    assert_equal [File.join(app, "vendor/bundle"), true, true], [s.path, s.deployment, s.frozen]
    s, = read(local: {"BUNDLE_PATH__SYSTEM" => "true"}, env: {"BUNDLE_PATH" => "/elsewhere"})
    assert_nil s.path, "the app's level says system gems: the environment's path is not reached"
    s, = read(env: {"BUNDLE_PATH" => "/srv/gems"}, global: {"BUNDLE_PATH" => "vendor/bundle"})
    assert_equal "/srv/gems", s.path
  end

  def test_bundle_app_config_names_the_apps_config_directory
    Dir.mktmpdir do |app|
      write(File.join(app, "conf", "config"), "BUNDLE_WITHOUT" => "test")
      assert_equal %w[test], S.read(app, env: {"BUNDLE_APP_CONFIG" => "conf"}, home: nil).without
      assert_equal [], S.read(app, env: {}, home: nil).without
      assert_equal [], S.read(app, env: {"BUNDLE_APP_CONFIG" => "conf", "BUNDLE_IGNORE_CONFIG" => "1"}, home: nil).without
    end
  end

  def test_false_values_read_as_bundler_reads_them
    %w[false f no n 0].each { |v| refute read(local: {"BUNDLE_FROZEN" => v}).first.frozen, v }
    assert read(local: {"BUNDLE_FROZEN" => "1"}).first.frozen
  end

  def test_the_groups_loaded
    s = S.from_layers([{"BUNDLE_WITHOUT" => "development test", "BUNDLE_WITH" => "docs"}], root: "/app")
    assert_equal %w[default production docs], s.requested(%w[default development test production docs], optional: %w[docs])
    only = S.from_layers([{"BUNDLE_ONLY" => "default"}], root: "/app")
    assert_equal %w[default], only.requested(%w[default test])
    assert_equal %w[default], S.none.requested(%w[default docs], optional: %w[docs])
  end

  def test_the_overlays_config_keeps_the_groups_and_loads_its_own
    s = S.from_layers([{"BUNDLE_WITHOUT" => "test", "BUNDLE_ONLY" => "default", "BUNDLE_PATH" => "vendor/bundle",
                        "BUNDLE_FROZEN" => "true"}], root: "/app")
    assert_equal({"BUNDLE_WITHOUT" => "test", "BUNDLE_ONLY" => "default:arena_servers", "BUNDLE_PATH__SYSTEM" => "true",
      "BUNDLE_FROZEN" => "false", "BUNDLE_DEPLOYMENT" => "false"}, s.overlay_config("arena_servers"))
  end

  def test_an_unreadable_config_is_one_line
    Dir.mktmpdir do |app|
      FileUtils.mkdir_p(File.join(app, ".bundle"))
      File.write(File.join(app, ".bundle", "config"), "---\nBUNDLE_WITHOUT: [unclosed\n")
      e = assert_raises(Arena::UsageError) { S.read(app, env: {}, home: nil) }
      assert_match(/config: not a Bundler config file/, e.message)
    end
  end
end
