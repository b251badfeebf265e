# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "timeout"

# The gem as a user gets it: built from the gemspec, installed with --local
# into an empty GEM_HOME (its dependencies from this machine's gem cache, the
# engine compiled by extconf.rb), then run from directories outside the
# checkout. The server gems come from the machine's gem paths, as they do for
# anyone who has them installed.
class GemInstallTest < Arena::ArenaCase
  CLEAN = %w[BUNDLE_GEMFILE RUBYOPT RUBYLIB BUNDLER_SETUP BUNDLE_BIN_PATH BUNDLER_VERSION GEM_HOME GEM_PATH].to_h { |k| [k, nil] }.freeze

  def test_built_installed_and_run_outside_the_checkout
    home = File.join(@tmp, "home")
    install(home)
    assert File.executable?(Dir[File.join(home, "extensions/*/*/rack-arena-*/arena-load")].first.to_s), "engine compiled at install"

    work = File.join(@tmp, "elsewhere")
    FileUtils.mkdir_p(work)
    env = runtime_env(home)

    out, err, status = run_cmd(env, work, "arena", "servers")
    assert status.success?, err
    assert_match(/^\| puma +\| yes +\| \S+ +\| bundle /, out)

    # One round (not the default 6), no warm-up to a steady state (up to 2 s
    # a round) and no round lengthened to hold 2,000 requests: the runs
    # judge the install, its errors and that something was served, not a rate.
    out, err, status = run_cmd(env, work, "arena", "run", "--servers", "puma", "-d", "1", "-w", "0", "--rounds", "1", "--warmup-max", "0", "--round-requests", "0", "-c", "4",
      "--workload", "server", "--out", "builtin")
    assert status.success?, "#{out}\n#{err}"
    results = JSON.parse(File.read(File.join(work, "builtin/results.json")))
    assert results.dig("plan", "app", "builtin")
    assert_measured results

    app = File.join(@tmp, "sinatra")
    FileUtils.cp_r(File.join(ROOT, "test/fixtures/apps/sinatra"), app)
    FileUtils.rm_f(File.join(app, ".itsi.pid"))
    before = %w[Gemfile Gemfile.lock].to_h { |f| [f, File.binread(File.join(app, f))] }
    out, err, status = run_cmd(env, app, "arena", "run", "--servers", "puma", "-d", "1", "-w", "0", "--rounds", "1", "--warmup-max", "0", "--round-requests", "0", "-c", "4",
      "--out", "results")
    assert status.success?, "#{out}\n#{err}"
    results = JSON.parse(File.read(File.join(app, "results/results.json")))
    assert_equal File.join(app, "config.ru"), results.dig("plan", "app", "rackup")
    assert_measured results
    assert_equal before, %w[Gemfile Gemfile.lock].to_h { |f| [f, File.binread(File.join(app, f))] }
  end

  private

  def install(home)
    src = File.join(@tmp, "src")
    FileUtils.mkdir_p(src)
    _, err, status = Open3.capture3(CLEAN, "gem", "build", "rack-arena.gemspec", "-o", File.join(src, "rack-arena.gem"), chdir: ROOT)
    assert status.success?, err
    dependencies.each { |spec| FileUtils.cp(spec.cache_file, src) }
    _, err, status = Open3.capture3(CLEAN.merge("GEM_HOME" => home, "GEM_PATH" => home),
      "gem", "install", "--local", "--no-document", "rack-arena.gem", chdir: src)
    assert status.success?, err
  end

  # rack-arena's runtime dependencies, all the way down, as installed here.
  def dependencies
    spec = Gem::Specification.load(File.join(ROOT, "rack-arena.gemspec"))
    seen = {}
    todo = spec.runtime_dependencies.map(&:name)
    until todo.empty?
      name = todo.shift
      next if seen[name]
      seen[name] = Gem::Specification.find_all_by_name(name).max_by(&:version) || flunk("#{name} is not installed here")
      todo.concat(seen[name].runtime_dependencies.map(&:name))
    end
    seen.values.each { |s| assert File.file?(s.cache_file), "#{s.full_name} is not in the gem cache" }
  end

  def runtime_env(home)
    system_paths, = Open3.capture2(CLEAN, "ruby", "-e", "print Gem.path.join(':')")
    CLEAN.merge("GEM_HOME" => home, "GEM_PATH" => [home, system_paths].join(":"),
      "PATH" => "#{File.join(home, "bin")}:#{ENV["PATH"]}", "XDG_CACHE_HOME" => File.join(@tmp, "cache"))
  end

  def run_cmd(env, dir, *argv) = Timeout.timeout(120) { Open3.capture3(env, *argv, chdir: dir) }

  def assert_measured(results)
    m = results.fetch("measurements").find { |x| x["load"] }
    refute_nil m, "a measurement"
    assert_operator m.dig("summary", "good_rps").to_f, :>, 0
    assert_equal 0, arena_errors(m), m.dig("load", "errors").inspect
  end
end
