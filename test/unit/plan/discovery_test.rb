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
      assert_equal "tune: no --workload: asked the app 3 paths; loading GET, equal shares:", found.lines.first
      assert_equal "tune:   1 /items, 1 /items/1", found.lines[1]
      assert_equal "tune:   ids from /items; not loaded: / (404)", found.lines[2]
      assert_equal "tune: --workload PATH[,PATH] (repeatable) or --requests FILE loads others, as one mix", found.lines.last
      assert found.lines.all? { |l| l.size <= 100 }, found.lines.join("\n")
    end

    def test_a_rack_app_that_answers_slash_loads_it_alone
      found = Plan::Discovery.choose({"rails" => false, "answers" => [{"path" => "/", "status" => 200}]})
      assert_equal ["/", 200, nil], [found.workload.path, found.workload.expect_status, found.workload.mix]
    end

    def self.page(path, route, status: 200, type: "text/html; charset=utf-8", **more)
      {"path" => path, "status" => status, "type" => type, "bytes" => 9000, "route" => route}
        .merge(more.transform_keys(&:to_s))
    end

    def self.to_login(path, route) = page(path, route, status: 302, location: "http://127.0.0.1/login?back_url=#{path}")

    # A large HTML app, as an anonymous user meets it: many routes, the
    # private ones redirecting to the login page.
    BIG_HTML = {"rails" => true, "routes" => 412, "seconds" => 6.04, "done" => true, "answers" => [
      page("/", "welcome#index"), page("/login", "account#login"), to_login("/my/page", "my#page"),
      # Two redirects to the home page do not make it a login page.
      page("/logout", "account#logout", status: 302, location: "http://127.0.0.1/"),
      page("/account/twofa", "account#twofa", status: 302, location: "http://127.0.0.1/"),
      page("/account/register", "account#register"), page("/robots.txt", "welcome#robots", type: "text/plain"),
      page("/projects", "projects#index"), page("/issues", "issues#index"), page("/news", "news#index"),
      page("/activity", "activities#index"), page("/search", "search#index"), page("/time_entries", "timelog#index"),
      to_login("/admin", "admin#index"), to_login("/users", "users#index"), page("/issues/gantt", "gantt#show"),
      page("/groups", "groups#index", status: 403), page("/boom", "errors#index", status: 500),
      page("/issues/5", "issues#show", from: "/issues"), page("/projects/ecookbook", "projects#show", from: "/projects"),
      page("/projects/ecookbook/issues", "issues#index", from: "/projects"), page("/news/1", "news#show", from: "/news"),
      page("/attachments/download/3", "attachments#download", type: "application/octet-stream", from: "/issues/5"),
      to_login("/users/2", "users#show").merge("from" => "/issues/5"), page("/versions/2", "versions#show", from: "/issues/5"),
      page("/boards/1", "boards#show", from: "/projects/ecookbook")
    ]}.freeze

    def test_a_large_html_app_loads_lists_and_shows_that_answer_anonymously_in_halves
      found = Plan::Discovery.choose(BIG_HTML)
      mix = found.workload.mix.map { |w, wl| [w, wl.path] }
      # "/" and index actions first; 4 shows at most, a show action before others; half and half.
      assert_equal [[1, "/"], [1, "/projects"], [1, "/issues"], [1, "/news"],
        [1, "/issues/5"], [1, "/projects/ecookbook"], [1, "/news/1"], [1, "/versions/2"]], mix
      assert_equal 5, found.lines.size, found.lines.join("\n")
      assert found.lines.all? { |l| l.size <= 100 }, found.lines.join("\n")
      assert_equal "tune: no --workload: asked the app 26 paths (of 412 GET routes) in 6.0 s; loading GET, equal shares:",
        found.lines[0]
      assert_equal ["tune:   1 /, 1 /projects, 1 /issues, 1 /news, 1 /issues/5, 1 /projects/ecookbook, 1 /news/1",
        "tune:   1 /versions/2"], found.lines[1, 2]
      assert_equal "tune:   not loaded: /login and 4 of the 6 redirects to it, 1 4xx, 1 failure, 2 assets, 7 more 2xx",
        found.lines[3]
      sorted = Plan::Discovery.sort(BIG_HTML["answers"])
      assert_equal %w[/robots.txt /attachments/download/3], sorted[:asset].map { |a| a["path"] }
      assert_equal %w[/login], sorted[:login].map { |a| a["path"] }
      assert_equal %w[/activity /search /time_entries /account/register /issues/gantt /boards/1 /projects/ecookbook/issues],
        sorted[:beyond].map { |a| a["path"] }
    end

    def test_fewer_shows_than_lists_weigh_more_each
      page = ->(*args, **more) { DiscoveryTest.page(*args, **more) }
      doc = {"answers" => [page.call("/a", "a#index"), page.call("/b", "b#index"), page.call("/c", "c#index"),
        page.call("/a/1", "a#show", from: "/a")]}
      assert_equal [[1, "/a"], [1, "/b"], [1, "/c"], [3, "/a/1"]], Plan::Discovery.choose(doc).workload.mix.map { |w, wl| [w, wl.path] }
      assert_match(/loading GET, by weight:\z/, Plan::Discovery.choose(doc).lines[0])
    end

    def test_an_app_behind_a_login_stops_with_a_hint_for_its_cookie
      doc = {"answers" => [DiscoveryTest.to_login("/", "home#index"), DiscoveryTest.to_login("/a", "a#index"),
        DiscoveryTest.page("/login", "sessions#new", status: 404)]}
      error = assert_raises(UsageError) { Plan::Discovery.choose(doc) }
      assert_match %r{tried / \(302 to .*\(2 of 3 redirect to /login: pages behind a login need its cookie, --header 'Cookie: \.\.\.'\)},
        error.message
    end

    # The probe's lines: read as they came, a line cut short left out.
    def test_the_probes_lines_are_one_document_and_judged
      text = %({"booted":true,"rails":true,"routes":3}\n{"answer":{"path":"/","status":200}}\n{"answer":{"pa)
      doc = Plan::Discovery.read(text)
      assert_equal({"answers" => [{"path" => "/", "status" => 200}], "booted" => true, "rails" => true, "routes" => 3}, doc)
      judge = ->(d, exited) { Plan::Discovery.judge(d, exited: exited, timeout: 90.0, log: "LOG", tail: "a | b") }
      assert_equal doc.merge("stopped" => true), judge.call(doc, nil), "stopped at the timeout, what was asked is kept"
      done = doc.merge("done" => true)
      assert_same done, judge.call(done, "exit 0")
      {doc.merge("error" => "NoMethodError: x", "at" => "p.rb:9") => "discovery failed: NoMethodError: x (p.rb:9; LOG); give --workload",
       doc => "discovery failed: the probe ended (exit 1) after 1 answers: a | b (LOG)",
       {"answers" => []} => "the app failed to boot to say what it serves: a | b (LOG)",
       {"answers" => [], "boot_error" => "RuntimeError: no db"} => "the app failed to boot to say what it serves: RuntimeError: no db (LOG)"}
        .each do |d, said|
          error = assert_raises(UsageError) { judge.call(d, "exit 1") }
          assert error.message.start_with?(said), error.message
        end
      assert_match(/did not boot within 90 s/, assert_raises(UsageError) { judge.call({"answers" => []}, nil) }.message)
      assert_match(/discovery failed: no answer within 90 s/, assert_raises(UsageError) { judge.call({"booted" => true, "answers" => []}, nil) }.message)
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

    # A show route filled from a link of a page the app answered 2xx, in the
    # route's own pattern (its requirement too), never a route of its own.
    def test_the_probe_fills_a_show_route_from_a_pages_links
      html = %(<a href="/issues/new">new</a> <a href='/issues/12?tab=x'>#12</a> <a href="//cdn/x">x</a> <a href="/projects/ecookbook#top">)
      links = Plan::DiscoveryProbe.links(html, "text/html")
      assert_equal %w[/issues/new /issues/12 /projects/ecookbook], links
      answered = [{"path" => "/issues", "status" => 200, "links" => links}, {"path" => "/gone", "status" => 404, "links" => ["/news/3"]}]
      issue = {path: "/issues/:id", params: ["id"], name: "issues#show", reqs: {}}
      assert_equal({path: "/issues/12", from: "/issues"}, Plan::DiscoveryProbe.fill(issue, answered, static: ["/issues/new"]))
      assert_equal({path: "/issues/new", from: "/issues"}, Plan::DiscoveryProbe.fill(issue, answered), "without the static routes")
      assert_equal({path: "/issues/12", from: "/issues"}, Plan::DiscoveryProbe.fill(issue.merge(reqs: {"id" => "\\d+"}), answered))
      nested = {path: "/projects/:project_id/issues", params: ["project_id"], reqs: {}}
      assert_nil Plan::DiscoveryProbe.fill(nested, answered)
      assert_equal({path: "/projects/ecookbook", from: "/issues"},
        Plan::DiscoveryProbe.fill({path: "/projects/:id", params: ["id"], reqs: {}}, answered))
      assert_nil Plan::DiscoveryProbe.fill({path: "/news/:id", params: ["id"], reqs: {}}, answered), "a 404's links are not the app's"
      assert_nil Plan::DiscoveryProbe.links("{}", "application/json")
    end

    # An app without Rails' routes (Sinatra, Roda, plain Rack): "/" and the pages it links to.
    def test_the_probe_asks_a_plain_rack_app_for_slash_and_the_pages_it_links_to
      home = %(<a href="/">home</a><a href="/books">books</a><a href="/books/1">one</a><a href="/site.css">)
      app = lambda do |env|
        return [200, {"content-type" => "text/html"}, [home]] if env["PATH_INFO"] == "/"
        raise "no such book" if env["PATH_INFO"] == "/books/1"
        [200, {"content-type" => env["PATH_INFO"].end_with?(".css") ? "text/css" : "text/html"}, ["<p>"]]
      end
      seen = []
      Plan::DiscoveryProbe.answers(app, [], headers: {}, deadline: Plan::DiscoveryProbe.now + 10) { |a| seen << a }
      assert_equal [["/", 200, nil], ["/books", 200, "/"], ["/books/1", 0, "/"], ["/site.css", 200, "/"]],
        seen.map { |a| [a["path"], a["status"], a["from"]] }
      assert seen.none? { |a| a.key?("links") }, "links stay in the probe"
      mix = Plan::Discovery.choose({"answers" => seen}).workload.mix.map { |w, wl| [w, wl.path] }
      assert_equal [[1, "/"], [1, "/books"]], mix
    end

    # The order the probe asks in: "/", index actions, short paths; then shows before nested routes.
    def test_the_probe_asks_lists_then_shows_in_order
      routes = [{path: "/login", params: [], name: "account#login"}, {path: "/a/b/c", params: [], name: "c#index"},
        {path: "/issues", params: [], name: "issues#index"}, {path: "/up", params: [], name: "rails/health#show", internal: true},
        {path: "/projects/:id/issues", params: ["id"], name: "issues#index"}, {path: "/issues/:id", params: ["id"], name: "issues#show"}]
      assert_equal %w[/ /issues /a/b/c /login], Plan::DiscoveryProbe.lists(routes).map { |r| r[:path] }
      assert_equal %w[/issues/:id /projects/:id/issues], Plan::DiscoveryProbe.shows(routes).map { |r| r[:path] }
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
