# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/plan/discovery"
require "arena/plan/discovery_probe"
require "arena/plan/proxy_headers"

module Arena
  # What `arena tune` loads when not told, from the app's own answers (the
  # probe's document), and the proxy header a Rails app that forces SSL gets.
  class DiscoveryTest < Minitest::Test
    cover "Arena::Plan::Discovery*"
    cover "Arena::Plan::ProxyHeaders*"

    RAILS_API = {"rails" => true, "answers" => [
      {"path" => "/", "status" => 404, "type" => "text/html", "bytes" => 0},
      {"path" => "/items", "status" => 200, "type" => "application/json", "bytes" => 434, "ids" => [1, 2, 3], "route" => "items#index"},
      {"path" => "/items/1", "status" => 200, "type" => "application/json", "bytes" => 42, "route" => "items#show", "from" => "/items"}
    ]}.freeze

    def test_a_rails_api_loads_its_index_and_a_filled_route_in_equal_shares
      found = Plan::Discovery.choose(RAILS_API)
      wl = found.workload
      assert_equal "routes", wl.name
      assert_equal [[1, "/items"], [1, "/items/1"]], wl.mix.map { |w, m| [w, m.path] }
      assert wl.mix.all? { |_, m| m.expect_status == 200 && m.method == "GET" }
      assert_equal "tune: no --workload: loading GET /items, /items/1, equal shares", found.lines.first
      assert_equal "tune: /items/1's id from /items; not loaded: / (404)", found.lines[1]
      assert_match(/--workload PATH\[,PATH\] or --requests FILE/, found.lines.last)
      assert found.lines.all? { |l| l.size <= 100 }, found.lines.join("\n")
    end

    def test_a_rack_app_that_answers_slash_loads_it_alone
      found = Plan::Discovery.choose({"rails" => false, "answers" => [{"path" => "/", "status" => 200}]})
      assert_equal ["/", 200, nil], [found.workload.path, found.workload.expect_status, found.workload.mix]
    end

    def test_nothing_answering_2xx_stops_with_the_paths_tried
      doc = {"rails" => true, "answers" => [{"path" => "/", "status" => 301, "location" => "https://127.0.0.1/"},
        {"path" => "/items", "status" => 0, "why" => "NameError: boom"}]}
      error = assert_raises(UsageError) { Plan::Discovery.choose(doc) }
      assert_match %r{no path answered 2xx.*tried / \(301 to https://127.0.0.1/\), /items \(NameError: boom\)}, error.message
      assert_match(/--workload PATH/, error.message)
    end

    def test_the_probe_fills_a_parameter_only_from_an_index_that_gave_ids
      route = {path: "/items/:id", params: ["id"], name: "items#show"}
      answered = [{"path" => "/items", "status" => 200, "ids" => [7, 8]}]
      assert_equal({path: "/items/7", from: "/items"}, Plan::DiscoveryProbe.fill(route, answered))
      assert_nil Plan::DiscoveryProbe.fill(route, [{"path" => "/items", "status" => 500, "ids" => [7]}])
      assert_nil Plan::DiscoveryProbe.fill({path: "/a/:x/b", params: ["x"]}, answered)
      assert_equal [1, "a"], Plan::DiscoveryProbe.ids('{"posts":[{"id":1},{"id":"a"}]}', "application/json")
      assert_nil Plan::DiscoveryProbe.ids("[1,2]", "application/json")
      assert_nil Plan::DiscoveryProbe.ids("<html>", "text/html")
    end

    def test_a_rails_app_that_forces_ssl_gets_the_forwarded_proto_header
      Dir.mktmpdir do |dir|
        assert_equal [{}, nil], Plan::ProxyHeaders.for(app_dir: dir)
        FileUtils.mkdir_p(File.join(dir, "config/environments"))
        path = File.join(dir, "config/environments/production.rb")
        File.write(path, "Rails.application.configure do\n  # config.force_ssl = true\nend\n")
        assert_equal [{}, nil], Plan::ProxyHeaders.for(app_dir: dir), "a comment is not a setting"
        File.write(path, "Rails.application.configure do\n  config.force_ssl = true\nend\n")
        headers, line = Plan::ProxyHeaders.for(app_dir: dir)
        assert_equal({"X-Forwarded-Proto" => "https"}, headers)
        assert_match(/X-Forwarded-Proto: https.*--no-proxy-headers/, line)
        assert_operator line.size, :<=, 100
        assert_equal [{}, nil], Plan::ProxyHeaders.for(app_dir: dir, off: true)
        assert_equal [{}, nil], Plan::ProxyHeaders.for(app_dir: dir, given: {"x-forwarded-proto" => "http"})
      end
    end
  end
end
