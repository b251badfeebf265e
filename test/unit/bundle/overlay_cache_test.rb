# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/bundle/builtin"
require "tmpdir"

# A cached bundle is reused only while its files are the ones sealed when it
# was finished; the check happens under the build lock.
class BundleCacheTest < Minitest::Test
  # Stands in for `bundle lock --local`: writes a lock and counts the calls.
  class FakeBundler
    attr_reader :calls

    def initialize = @calls = 0

    def call(gemfile, _args, log_path:)
      @calls += 1
      File.write("#{gemfile}.lock", "GEM\n  specs:\n    rack (3.0.0)\n")
      Struct.new(:ok).new(true)
    end
  end

  def test_the_builtin_bundle_is_rebuilt_when_its_lock_was_changed
    Dir.mktmpdir do |root|
      bundler = FakeBundler.new
      bundle = Arena::Bundle::Builtin.new(cache_root: root, bundler: bundler, servers: [])
      gemfile = bundle.call
      assert_equal gemfile, bundle.call
      assert_equal 1, bundler.calls, "an intact bundle is reused"
      File.write("#{gemfile}.lock", "") # a build cut short, or an edit
      bundle.call
      assert_equal 2, bundler.calls, "a changed lock is built again"
    end
  end

  def test_an_overlay_record_is_trusted_only_when_sealed
    Dir.mktmpdir do |dir|
      app = Struct.new(:app_gemfile, :app_lockfile).new("/nonexistent/Gemfile", "/nonexistent/Gemfile.lock")
      overlay = Arena::Bundle::Overlay.new(app: app, servers: [], cache_root: dir, floors: {})
      record = File.join(dir, Arena::Bundle::Overlay::RECORD)
      File.write(record, JSON.generate("servers" => [{"server" => "thin", "state" => "cannot", "gems" => ["thin"], "why" => "x"}]))
      assert_nil overlay.send(:cached, dir, {"thin" => ["thin"]}, {"thin" => ["thin"]}), "no seal: not reused"
      Arena::Bundle::Seal.write(dir, [Arena::Bundle::Overlay::RECORD])
      refute_nil overlay.send(:cached, dir, {"thin" => ["thin"]}, {"thin" => ["thin"]}), "sealed and unchanged: reused"
      File.write(record, File.read(record).sub("cannot", "app"))
      assert_nil overlay.send(:cached, dir, {"thin" => ["thin"]}, {"thin" => ["thin"]}), "changed since: not reused"
    end
  end
end
