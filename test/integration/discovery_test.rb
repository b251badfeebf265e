# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"

# What `arena tune` loads when not told, asked of small Rails apps made here
# (the rails fixture's bundle, HTML pages of their own): list pages and show
# pages whose ids come from the lists' links, never a redirect to the login
# page, a 4xx or an asset; a probe that fails once the app booted says
# "discovery failed", and only an app that does not boot says it did not.
class DiscoveryTest < Arena::ArenaCase
  RAILS = File.join(ROOT, "test/fixtures/apps/rails")

  ROUTES = <<~RUBY
    Rails.application.routes.draw do
      root "pages#home"
      get "login" => "pages#login"
      get "admin" => "pages#to_login"
      get "account" => "pages#to_login"
      get "settings" => "pages#to_login"
      get "secret" => "pages#forbidden"
      get "site.css" => "pages#css"
      # One parameter, and nothing the app answers links to it.
      get "widgets/:id" => "pages#home"
      resources :articles, only: [:index, :show, :new, :create], constraints: {id: /\\d+/}
      get "articles/:article_id/comments" => "articles#comments"
    end
  RUBY

  CONTROLLERS = <<~RUBY
    class PagesController < ActionController::Base
      def home = render(html: page("Home", "/articles", "/login"))
      def login = render(html: page("Log in"))
      def css = render(plain: "body { color: red }", content_type: "text/css")
      def to_login = redirect_to("/login?back_url=\#{request.path}")
      def forbidden = head(:forbidden)

      private

      def page(title, *links)
        "<html><body><h1>\#{title}</h1>\#{links.map { |l| %(<a href="\#{l}">\#{l}</a>) }.join}</body></html>".html_safe
      end
    end

    class ArticlesController < PagesController
      def index = render(html: page("Articles", "/articles/new", "/articles/7?ref=list", "/articles/9", "/articles/7/comments"))
      def new = render(html: page("New article"))
      def show = (params[:id] == "7") ? render(html: page("Article 7", "/articles")) : head(:not_found)
      def comments = render(html: page("Comments"))
    end
  RUBY

  def test_an_html_app_loads_its_lists_and_shows_by_their_links_never_the_login_page
    app = html_app("html")
    found = discover(app)
    paths = found.workload.mix.map { |_, wl| wl.path }
    assert_equal ["/", "/articles", "/articles/new", "/articles/7", "/articles/7/comments"], paths, found.lines.join("\n")
    # Lists and shows half and half: 3 lists of 2, 2 shows of 3.
    assert_equal [2, 2, 2, 3, 3], found.workload.mix.map(&:first)
    assert found.workload.mix.all? { |_, wl| wl.expect_status == 200 && wl.method == "GET" }
    assert_operator found.lines.size, :<=, 4
    assert found.lines.all? { |l| l.size <= 100 }, found.lines.join("\n")
    assert_match %r{\Atune: no --workload: asked the app \d+ paths \(of \d+ GET routes\) in [\d.]+ s; loading GET, by weight:\z},
      found.lines[0]
    assert_equal "tune:   2 /, 2 /articles, 2 /articles/new, 3 /articles/7, 3 /articles/7/comments", found.lines[1]
    assert_equal "tune:   ids from /articles; not loaded: /login and the 3 redirects to it, 1 4xx, 1 asset",
      found.lines[2]
    assert_equal "tune: --workload PATH[,PATH] (repeatable) or --requests FILE loads others, as one mix", found.lines[3]
  end

  # A failure of the probe's own, once the app booted (here its filling of
  # a route raises as the old probe did on a route it could not fill).
  def test_a_probe_that_raises_says_discovery_failed_with_its_log
    app = html_app("raising")
    probe = File.join(@tmp, "raising_probe.rb")
    File.write(probe, <<~RUBY)
      require #{Arena::Plan::Discovery::PROBE.inspect}
      module Arena::Plan::DiscoveryProbe
        def self.fill(*) = raise(NoMethodError, "undefined method '[]' for nil")
      end
      Arena::Plan::DiscoveryProbe.main(ARGV)
    RUBY
    error = assert_raises(Arena::UsageError) { discover(app, probe: probe) }
    assert_match(/\Adiscovery failed: NoMethodError: undefined method '\[\]' for nil \(.*raising_probe.rb:3.*discovery.log\); give --workload/,
      error.message)
    refute_match(/boot/, error.message)
  end

  def test_an_app_that_does_not_boot_says_so
    app = html_app("broken")
    File.write(File.join(app.dir, "config.ru"), "raise 'cannot reach the database'\n")
    error = assert_raises(Arena::UsageError) { discover(app) }
    assert_match(/\Athe app failed to boot to say what it serves: .*cannot reach the database.*discovery.log\)/, error.message)
  end

  private

  def discover(app, **options)
    out = File.join(@tmp, "out-#{File.basename(app.dir)}")
    FileUtils.mkdir_p(out)
    Arena::Plan::Discovery.new(app: app, dir: out, timeout: 60.0, **options).call
  end

  # A Rails app of HTML pages on the rails fixture's bundle.
  def html_app(name)
    dir = File.join(@tmp, name)
    FileUtils.mkdir_p(File.join(dir, "app/controllers"))
    FileUtils.mkdir_p(File.join(dir, "config/environments"))
    %w[Gemfile Gemfile.lock config.ru config/boot.rb config/environment.rb].each { |f| FileUtils.cp(File.join(RAILS, f), File.join(dir, f)) }
    File.write(File.join(dir, "config/application.rb"), <<~RUBY)
      require_relative "boot"
      require "rails"
      require "action_controller/railtie"
      Bundler.require(*Rails.groups)
      module HtmlFixture
        class Application < Rails::Application
          config.load_defaults 7.2
          config.eager_load = true
          config.secret_key_base = "s" * 64
          config.logger = ActiveSupport::Logger.new(STDOUT)
        end
      end
    RUBY
    File.write(File.join(dir, "config/routes.rb"), ROUTES)
    File.write(File.join(dir, "app/controllers/pages_controller.rb"), CONTROLLERS)
    Arena::Bundle::AppSource.user(dir)
  end
end
