# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require_relative "../support/bundler_settings_app"

# A user's app installed as it is deployed (`bundle config set --local
# without 'development test'`, its gems under vendor/bundle, Puma only in
# its :test group), run on Puma and on servers it does not bundle. Before,
# the overlay tried to install the groups the app left out ("bundle install
# failed: Could not find notinstalled-1.0.0"), and Puma was taken as the
# app's and then not found at boot ("can't find executable puma").
class YourAppBundlerSettingsTest < Arena::ArenaCase
  include Arena::BundlerSettingsApp

  SERVERS = %w[puma thin webrick].freeze

  def test_an_app_installed_as_deployed_runs_on_the_servers_it_does_not_load
    @app = File.join(@tmp, "app")
    make_app(without: "development:test", path: true)
    before = tree(@app)
    out = File.join(@tmp, "out")
    stdout, stderr, status = Timeout.timeout(300) do
      Open3.capture3(CLEAN.merge("XDG_CACHE_HOME" => File.join(@tmp, "cache")), EXE, "run", "--app", @app, "--servers", SERVERS.join(" "),
        "--workload", "/", "-d", "0.5", "-w", "0.2", "--rounds", "1", "--warmup-max", "0", "--round-requests", "0", "--out", out, chdir: @tmp)
    end
    assert status.success?, "exit #{status.exitstatus}\n#{stdout}\n#{stderr}"
    assert_match(/overlay bundle built in [\d.]+ s: 3 server\(s\) added/, stderr)
    measured = JSON.parse(File.read(File.join(out, "results.json"))).fetch("measurements").select { |m| m["load"] }
    SERVERS.each do |key|
      m = measured.find { |x| x["server"].split(":").first == key }
      refute_nil m, "#{key} was not measured\n#{stderr}"
      assert_equal 0, arena_errors(m), "#{key}: #{m.dig("load", "errors")}"
      assert_operator m.dig("load", "requests", "completed").to_i, :>, 0, key
    end
    assert_equal before, tree(@app), "the app's tree, .bundle/config and vendor/bundle included, is as it was"
  end
end
