# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "timeout"

# How a server's memory is laid out, against known truths: the per-worker
# cost of a preloaded Puma is less than one worker's RSS (shared pages
# counted once); the runtime settings (YJIT, jemalloc) reach the server's
# processes. No rate or slope is judged here, so, unlike the soaks of
# memory_test.rb, this file runs beside others (not `# test: serial`).
class MemoryLayoutTest < Arena::ArenaCase
  def test_worker_cost_of_preloaded_puma_counts_shared_pages_once
    outcome = arena("run", "--servers", "puma:workers=2,preload=true", "--workload", "server", "--scenario", "worker-cost",
      "--max-workers", "4", "-d", "1", "-w", "0.3", timeout: 180)
    assert outcome.status.success?, outcome.describe
    fit = outcome.measurements.find { |m| m["scenario"] == "worker-cost" && m["kind"] == "summary" }
    x = fit.fetch("extra")
    assert_equal [1, 2, 4], x["points"].map { |p| p["workers"] }
    assert_equal "puma:workers=2,threads=5,preload=true", fit["server"]
    assert x["points"].all? { |p| p["pss_kb"].positive? && p["sharing_start"].between?(0, 1) && p["sharing_end"].between?(0, 1) }, x.inspect
    assert_operator x["per_worker_kb"], :>, 0
    assert_operator x["per_worker_kb"], :<, x["worker_rss_kb"], "per-worker cost below one worker's RSS"
    labels = outcome.measurements.select { |m| m["scenario"] == "worker-cost" && m["kind"] != "summary" }.map { |m| m["server"] }
    assert_equal %w[1 2 4].map { |n| "puma:workers=#{n},threads=5,preload=true" }, labels
    assert_match(/^puma\S*  worker-cost  PSS ≈ [\d.]+ MiB \+ n × [\d.]+ [MG]iB \(R² [\d.]+\)$/, outcome.stdout)
    assert_match(/worker-cost: PSS ≈ .* \+ n × .*sharing per worker at start→end of load/, outcome.report_md)
  end

  # The runtime reaches every server the same way, its environment: also
  # uWSGI's embedded Ruby and Passenger's app processes (passed as --envvar).
  # Puma (one worker) is also checked for its malloc setting in each
  # process's environment and the runtime's label: on this boot, not one of
  # its own (a Puma boot of 2-8 s).
  def test_every_installed_server_runs_with_yjit_and_jemalloc
    skip "libjemalloc2 not installed" unless Arena::Plan::Runtime.jemalloc_path
    runtime = Arena::Plan::Runtime.parse("yjit,malloc=jemalloc,malloc_arena_max=2")
    app = Arena::Bundle::AppSource.builtin
    keys = Arena::Servers.all.reject { |k| k.ruby_engine != "mri" || !k.install(app).found }.map(&:key)
    refute_empty keys
    keys.each do |key|
      klass = Arena::Servers.fetch(key)
      workers = klass.worker_setting ? {klass.worker_setting => 1} : {}
      run = Arena::Launch::LocalServer.new(adapter: klass.new(settings: workers, runtime: runtime), app: app, bind: Arena::System::Bind.tcp,
        dir: File.join(@tmp, key))
      begin
        run.start
        body = Arena::Verify::HttpProbe.new(run.bind, timeout: 5).get("/server").body
        assert_includes body, "yjit: on", key
        assert_puma_runtime(run, body) if key == "puma"
        # A process that exited meanwhile (a zombie) has empty maps.
        maps = run.pids.filter_map { |pid|
          begin
            File.read("/proc/#{pid}/maps")
          rescue
            nil
          end
        }.reject(&:empty?)
        refute_empty maps, key
        maps.each { |text| assert_match(/libjemalloc\.so\.2/, text, key) }
      ensure
        run.stop
      end
    end
  end

  def test_without_a_runtime_there_is_no_jemalloc_and_no_yjit
    adapter = Arena::Servers::Puma.new(settings: {"workers" => 0})
    run = Arena::Launch::LocalServer.new(adapter: adapter, app: Arena::Bundle::AppSource.builtin, bind: Arena::System::Bind.tcp, dir: File.join(@tmp, "server"))
    run.start
    run.pids.each { |pid| refute_match(/libjemalloc/, File.read("/proc/#{pid}/maps")) }
    assert_includes Arena::Verify::HttpProbe.new(run.bind, timeout: 5).get("/server").body, "yjit: off"
  ensure
    run&.stop
  end

  private

  def assert_puma_runtime(run, body)
    pids = run.pids
    assert_operator pids.size, :>=, 2, "master and worker"
    pids.each do |pid|
      assert_match(/libjemalloc\.so\.2/, File.read("/proc/#{pid}/maps"), "jemalloc mapped in #{pid}")
      assert_includes File.read("/proc/#{pid}/environ").split("\0"), "MALLOC_ARENA_MAX=2"
    end
    assert_includes body, "+yjit+malloc=jemalloc+malloc_arena_max=2"
  end
end
